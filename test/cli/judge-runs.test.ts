import { describe, expect, it } from "vitest";
import { TestRepo, tempDir } from "../helpers/git-repo.js";
import { ranex } from "./cli-capture.js";

// Verdicts say why (issue 15): the test command below runs and exits without writing a report, as a
// misconfigured runner does. The user must see, without opening any cache file, how each run ended
// and what it printed last, for the base run as well as the head run.
const POLICY = `version: 1
tests:
  command: 'echo "collecting tests"; echo "ERROR: no module named calc_helpers" >&2; exit 4'
  timeout: 30
scope:
  allow: ["src/**"]
checks:
  - name: lint
    run: echo "lint ok"
require: [diff.frozen, diff.scope, tests.regression, check:lint]
`;

function repository(): TestRepo {
  const repo = TestRepo.init();
  repo.commit({ ".github/ranex.yml": POLICY, "src/calc.py": "def add(a, b):\n    return a + b\n", "tests/test_calc.py": "def test_add():\n    pass\n" }, "base");
  repo.branch("change");
  repo.commit({ "src/calc.py": "def add(a, b):\n    return b + a\n" }, "change");
  return repo;
}

describe("ranex judge on a run that wrote no report", () => {
  const repo = repository();
  const args = ["judge", "--repo", repo.dir, "--base", "main", "--head", "change", "--data-dir", tempDir()];

  it("prints every run with its exit status and timings, and the last lines of output of those that went wrong", async () => {
    const { code, stdout } = await ranex(args);
    expect(code).toBe(1);
    expect(stdout).toMatch(/\n {2}FAIL {2}base {8}exit 4 · tests \d+\.\d s · no JUnit report at \$RANEX_JUNIT: the test command wrote none\n/);
    expect(stdout).toMatch(/\n {2}FAIL {2}head {8}exit 4 · tests \d+\.\d s · no JUnit report/);
    expect(stdout).toMatch(/\n {2}ok {4}check:lint {2}exit 0 · check \d+\.\d s\n/);
    expect(stdout).toContain("| collecting tests\n");
    expect(stdout).toContain("| ERROR: no module named calc_helpers\n");
    // Both runs' problems are named in the reason; none is folded into "(and 1 more problems)".
    expect(stdout).not.toContain("more problems");
    expect(stdout).toMatch(/tests\.regression +head: no JUnit report at \$RANEX_JUNIT: the test command wrote none \(the test command exited 4 after \d+\.\d s; its last line: ERROR: no module named calc_helpers\); cannot compare with base: base: no JUnit report/);
  });

  it("gives the same facts in --json, as fields added to the contract", async () => {
    const { code, stdout } = await ranex([...args, "--json"]);
    expect(code).toBe(1);
    const json = JSON.parse(stdout) as { runs: Record<string, unknown>[]; claims: { name: string; runs?: string[] }[] };
    expect(json.runs.map((r) => r.run)).toEqual(["base", "head", "check:lint"]);
    expect(json.runs[1]).toMatchObject({
      run: "head", stage: "tests", exitCode: 4, signal: null, timedOut: false, limit: null, ok: false,
      report: "no JUnit report at $RANEX_JUNIT: the test command wrote none",
      stages: { tests: expect.any(Number) },
      outputTail: expect.stringContaining("ERROR: no module named calc_helpers"),
    });
    expect(json.claims.find((c) => c.name === "tests.regression")?.runs).toEqual(["base", "head"]);
  });
});
