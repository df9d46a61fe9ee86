import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataDirSealKey } from "../../src/attest/index.js";
import { ranex } from "../cli/cli-capture.js";
import { FIXTURES_DIR, fixtureRepo } from "./fixtures.js";
import { git, tempDir } from "./git-repo.js";

// The python-roman example with its acceptance tests sealed to a test gate's key (issue 20). The
// plain tests live in fixtures/sealed/roman and are never committed: this seals them with the real
// `ranex seal` in a clone and commits the sealed file on main, then makes the heads that need it.

export const PLAIN_ACCEPTANCE = join(FIXTURES_DIR, "..", "sealed", "roman", "test_roman_more.py");
export const SEALED_AT = "tests/acceptance/test_roman_more.py";
export const SEALED_FILE = ".ranex/sealed/roman.sealed";

/** What must never reach the agent: the sealed tests' names, file, source lines and output. */
export const SECRETS = {
  names: ["test_sealed_roman_big_q7", "test_sealed_roman_forty_q7", "test_sealed_roman_max_q7"],
  file: ["test_roman_more", "tests/acceptance"],
  source: ["MCMXCIV", "MMMCMXCIX", "type(got) is str"],
  output: ["SEALED-OUTPUT-q7"],
};

export interface SealedRepo {
  dir: string;
  /** main before the seal: every head here branches from it. */
  unsealedMain: string;
}

/**
 * A clone of python-roman whose main carries the sealed tests (sealed to `dataDir`'s key), with
 * local branches honest, lookup, always-equal; edit-sealed and delete-sealed (heads that touch the
 * sealed file); and `main-plain`: the same acceptance tests committed in plain as task targets
 * instead, with tests.sealed out of require (the leak tests' control: sealing turned off).
 */
export async function sealedRoman(dataDir: string): Promise<SealedRepo> {
  const source = await fixtureRepo("python-roman");
  const dir = join(tempDir("ranex-sealed-"), "repo");
  git(process.cwd(), "clone", "-q", source, dir);
  for (const branch of ["honest", "lookup", "always-equal"]) git(dir, "branch", "-f", branch, `origin/${branch}`);
  const unsealedMain = git(dir, "rev-parse", "main");
  await dataDirSealKey(dataDir);

  mkdirSync(join(dir, "tests", "acceptance"), { recursive: true });
  copyFileSync(PLAIN_ACCEPTANCE, join(dir, SEALED_AT));
  const sealed = await ranex(["seal", "--task", "roman", SEALED_AT, "--data-dir", dataDir], { cwd: dir });
  if (sealed.code !== 0) throw new Error(`ranex seal failed: ${sealed.stderr}`);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "roman: sealed acceptance tests");

  git(dir, "checkout", "-q", "-b", "edit-sealed", "main");
  writeFileSync(join(dir, SEALED_FILE), readFileSync(join(dir, SEALED_FILE), "utf8").replace(/"box": "(.)/, (_, c: string) => `"box": "${c === "A" ? "B" : "A"}`));
  git(dir, "commit", "-q", "-am", "roman: tidy");
  git(dir, "checkout", "-q", "-b", "delete-sealed", "main");
  git(dir, "rm", "-q", SEALED_FILE);
  git(dir, "commit", "-q", "-m", "roman: tidy");

  git(dir, "checkout", "-q", "-b", "main-plain", unsealedMain);
  mkdirSync(join(dir, "tests", "acceptance"), { recursive: true });
  copyFileSync(PLAIN_ACCEPTANCE, join(dir, SEALED_AT));
  const policy = join(dir, ".github", "ranex.yml");
  writeFileSync(policy, readFileSync(policy, "utf8").replace(", tests.sealed]", "]"));
  const task = join(dir, ".ranex", "tasks", "roman.yml");
  const targets = ["tests/test_roman.py::test_small_numbers", ...SECRETS.names.map((n) => `${SEALED_AT}::${n}`)];
  writeFileSync(task, readFileSync(task, "utf8").replace(/^targets: .*$/m, `targets: ${JSON.stringify(targets)}`));
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "roman: acceptance tests in plain");
  git(dir, "checkout", "-q", "main");
  return { dir, unsealedMain };
}
