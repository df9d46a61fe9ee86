import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";
import { failingText, parseVerdict, runCli } from "./run-cli.js";

// The real CLI on a repository whose tests read a git submodule (issue 22), as a new user would
// meet it: `ranex init` tries its policy with the submodule filled, and `ranex judge` judges an
// honest fix that needs the submodule's data. Local submodule URLs need the operator's leave
// (RANEX_SUBMODULE_FILE=1); without it both say so, naming the submodule.

const run = promisify(execFile);
const LOCAL = { RANEX_SUBMODULE_FILE: "1" };

/** A fresh copy of the fixture (init writes into its checkout), its submodules' repositories beside it. */
async function build(): Promise<string> {
  const dir = join(tempDir("ranex-submodule-cli-"), "python-submodule");
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  await run("bash", [join(FIXTURES_DIR, "python-submodule.sh"), dir], { env });
  return dir;
}

describe("the CLI on a repository with submodules", () => {
  it("ranex init tries its policy with the submodule's data in the tree, and ranex judge makes the honest fix a CANDIDATE", async () => {
    const repo = await build();
    const data = tempDir("ranex-data-");
    const init = await runCli(["init", "--dir", repo, "--force", "--data-dir", data], 240_000, LOCAL);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toMatch(/tests found: 2 in 1 file\(s\)\n {2}tests\/test_add\.py {2}2 \(2 passed\)/);

    const judged = await runCli(["judge", "--repo", repo, "--base", "main", "--head", "honest", "--data-dir", data, "--json"], 240_000, LOCAL);
    const verdict = parseVerdict(judged);
    expect(verdict.verdict, failingText(verdict)).toBe("CANDIDATE");
    expect(judged.code).toBe(0);
  }, 600_000);

  it("without the operator's leave, init and judge say which submodule and which setting", async () => {
    const repo = await build();
    const data = tempDir("ranex-data-");
    const init = await runCli(["init", "--dir", repo, "--force", "--data-dir", data], 240_000);
    expect(init.stdout).toContain(`problem: could not try it: submodule "tests/data" ("../python-submodule-modules/data"): it is a path on this machine and the operator has not allowed local submodules (RANEX_SUBMODULE_FILE=1)`);

    const judged = await runCli(["judge", "--repo", repo, "--base", "main", "--head", "honest", "--data-dir", data, "--json"], 240_000);
    const verdict = parseVerdict(judged);
    expect(judged.code).toBe(1);
    expect(verdict.claims.find((c) => c.name === "tests.regression")?.reason).toMatch(/^not measured: submodule "tests\/data" .*RANEX_SUBMODULE_FILE=1/);
  }, 600_000);
});
