import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git } from "../helpers/git-repo.js";
import { failingText, initByCli, parseVerdict, REPO_ROOT, runCli, type VerdictJson } from "./run-cli.js";

// A vitest repository set up as a new user does: `ranex init` (vitest from this project's own
// node_modules/.bin, named with --toolchain), its policy committed unmodified, and the owner's task
// `longest` whose frozen target test is red on main (fixtures/repos/init-vitest-task.sh). Two heads
// leave the task undone and make the target pass from the code under test, at import: vitest's
// `toBe` neutered through expect.extend under a name built at run time, and `globalThis.test`
// wrapped so that the frozen tests get empty bodies. init wrote vitest's own command until now, whose
// canary is a test file of its own: both were CANDIDATE. init now writes the gate's launcher, which
// loads the canaries and the registration watch into every test file: both FAIL, unsafe. The honest
// head stays CANDIDATE, its repeats selected through the launcher (no "selection did not take effect").

const TOOLCHAIN = join(REPO_ROOT, "node_modules", ".bin");
const HEADS = ["honest", "neuter-expect", "wrap-test"] as const;
const PLAIN = 'vitest run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests';

async function judged(repo: string, data: string, head: string): Promise<VerdictJson> {
  return parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--task", "longest", "--data-dir", data, "--json"], 600_000));
}

const failing = (verdict: VerdictJson): string[] => verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => c.name);
const reasonOf = (verdict: VerdictJson, claim: string): string => verdict.claims.find((c) => c.name === claim)?.reason ?? "";

describe("init-vitest-task: init's policy, unmodified, judges code under test that forges the frozen target's outcome", () => {
  it("init writes the launcher; the honest head is a CANDIDATE with selected repeats, both forgeries FAIL unsafe; vitest's own command saw neither", async () => {
    const { repo, data, init } = await initByCli("init-vitest-task", HEADS, ["--toolchain", TOOLCHAIN]);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('tests.command: node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests');
    expect(init.stdout).toMatch(/failing on HEAD already: 1 \(test\/longest\.test\.js::finds the longest word\)/);

    const honest = await judged(repo, data, "honest");
    expect(honest.verdict, failingText(honest)).toBe("CANDIDATE");
    // The repeats ran the target alone, and proved it (a selection that did not take effect says so here).
    expect(honest.claims.find((c) => c.name === "tests.stable")?.details.map((d) => d.message)).toEqual([
      "test/longest.test.js::finds the longest word: base failed, failed, failed; head passed, passed, passed",
    ]);

    const neutered = await judged(repo, data, "neuter-expect");
    expect(neutered.verdict).toBe("FAIL");
    expect(neutered.class).toBe("unsafe");
    expect(failing(neutered)).toEqual(["tests.regression"]);
    expect(reasonOf(neutered, "tests.regression")).toMatch(/the gate's canaries came back wrong on head: .* \(fails through vitest expect\(\)\.toBe in every test file\) came back wrong in test\/longest\.test\.js \(passed\)/);

    const wrapped = await judged(repo, data, "wrap-test");
    expect(wrapped.verdict).toBe("FAIL");
    expect(wrapped.class).toBe("unsafe");
    expect(failing(wrapped)).toEqual(["tests.regression"]);
    expect(reasonOf(wrapped, "tests.regression")).toContain("test/longest.test.js: globalThis.test was replaced by src/words.js");

    // What init wrote before (and still writes for a configuration with projects of its own): both
    // forgeries pass every claim, which is the hole the launcher closes.
    const policy = join(repo, ".github", "ranex.yml");
    writeFileSync(policy, readFileSync(policy, "utf8").replace(/^ {2}command: .*$/m, `  command: '${PLAIN}'`));
    git(repo, "commit", "-q", "-am", "ranex: vitest's own command");
    for (const head of HEADS) {
      git(repo, "checkout", "-q", head);
      git(repo, "rebase", "-q", "main");
    }
    git(repo, "checkout", "-q", "main");
    for (const head of ["neuter-expect", "wrap-test"]) {
      const plain = await judged(repo, data, head);
      expect(plain.verdict, `${head}: ${failingText(plain)}`).toBe("CANDIDATE");
    }
  }, 1_200_000);
});
