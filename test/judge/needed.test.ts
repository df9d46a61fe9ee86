import { describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import type { ClaimResult } from "../../src/kernel/types.js";
import { fixtureRepo, loadExpectations, type FixtureName } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";

// diff.needed's mutants on the example repositories (fixtures/repos): which tests each mutant runs,
// as the verdict shows it. A runner that can select runs the test files holding a watched test first
// and the full suite only for a mutant they do not kill; one that cannot runs the full suite.

const expectations = loadExpectations();

async function judged(name: FixtureName, head: string): Promise<Judgment> {
  const want = expectations[name][head]!;
  return judge({ source: await fixtureRepo(name), base: want.base ?? "main", head, task: want.task ?? null, dataDir: tempDir() });
}

function needed(judgment: Judgment): ClaimResult {
  const claim = judgment.verdict.claims.find((c) => c.name === "diff.needed");
  if (claim === undefined) throw new Error("the verdict has no diff.needed");
  return claim;
}

const failing = (judgment: Judgment): string[] =>
  judgment.verdict.claims.filter((c) => c.name !== "approval.independent" && c.status !== "pass").map((c) => `${c.name}: ${c.reason}`);

/** Each run the claim names, as `name: report` ("mutant src/calc.py:15: selected tests: 3 test cases"). */
const runsOf = (claim: ClaimResult): string[] => (claim.runs ?? []).map((r) => `${r.run}: ${r.report ?? "no report"}`);

describe("diff.needed with a runner that can select (pytest)", () => {
  it("runs each mutant on the watched tests' files first; the needed hunk is killed there and names its killer, the unneeded one is confirmed by the full suite", async () => {
    const judgment = await judged("python-calc", "unneeded-selected");
    expect(judgment.verdict.verdict).toBe("FAIL");
    expect(failing(judgment)).toEqual([expect.stringMatching(/^diff\.needed: hunks no test needs: src\/calc\.py:9-10$/)]);
    const claim = needed(judgment);
    const messages = claim.details.map((d) => d.message);
    // The backlog (tests/test_backlog.py, red on the base) and test_clamp.py hold no watched test.
    expect(messages[0]).toBe("each mutant first ran the selected tests: the 2 test files holding a watched test (tests/test_calc.py, tests/test_div.py), 3 of the suite's 16 test cases, through the gate's pytest plugin; a mutant they did not kill then ran the full suite");
    expect(claim.details).toContainEqual({ kind: "needed", path: "src/calc.py", line: 15, message: "src/calc.py:15: needed by tests/test_div.py::test_div (in a run of the selected tests)" });
    expect(claim.details).toContainEqual({ kind: "unneeded", path: "src/calc.py", line: 9, message: "src/calc.py:9-10: no test changes its outcome without this change (the selected tests, then the full suite)" });
    expect(runsOf(claim).sort()).toEqual([
      "mutant src/calc.py:15: selected tests: 3 test cases",
      "mutant src/calc.py:9-10: full suite: 16 test cases",
      "mutant src/calc.py:9-10: selected tests: 3 test cases",
      "mutants' reference: selected tests: 3 test cases",
    ]);
    expect(judgment.timings["mutants-selected"]).toBeGreaterThan(0);
    expect(judgment.timings["mutants-full"]).toBeGreaterThan(0);
  }, 240_000);

  it("runs the full suite when the watched tests' files hold most of it, and still lists the unneeded hunk", async () => {
    const judgment = await judged("python-calc", "unneeded-branch");
    expect(failing(judgment)).toEqual(["diff.needed: hunks no test needs: src/calc.py:5-6"]);
    const claim = needed(judgment);
    expect(claim.details[0]?.message).toBe("each mutant ran the full suite: the files of the watched tests hold 3 of the suite's 6 test cases: selecting them would not be cheaper for 2 mutants");
    expect(claim.details).toContainEqual(expect.objectContaining({ kind: "needed", message: "src/calc.py:15: needed by tests/test_div.py::test_div" }));
    expect(runsOf(claim).sort()).toEqual(["mutant src/calc.py:15: full suite: 6 test cases", "mutant src/calc.py:5-6: full suite: 6 test cases"]);
    expect(judgment.timings["mutants-selected"]).toBeUndefined();
  }, 240_000);
});

describe("diff.needed with a runner that cannot select (node --test, no tests.select)", () => {
  it("runs the full suite for every mutant: the needed hunk names its killer, the unneeded one is listed", async () => {
    const judgment = await judged("node-calc", "unneeded-mul");
    expect(failing(judgment)).toEqual(["diff.needed: hunks no test needs: src/calc.js:5"]);
    const claim = needed(judgment);
    expect(claim.details[0]?.message).toBe("each mutant ran the full suite: the runner cannot select tests with this command, and the policy has no tests.select");
    const killed = claim.details.find((d) => d.kind === "needed");
    expect(killed?.message).toMatch(/^src\/calc\.js:13-17: needed by .*mul multiplies two numbers/);
    expect(claim.details).toContainEqual({ kind: "unneeded", path: "src/calc.js", line: 5, message: "src/calc.js:5: no test changes its outcome without this change" });
    // The suite is test/calc.test.js's two tests and the PR's own test of mul.
    expect(runsOf(claim).sort()).toEqual(["mutant src/calc.js:13-17: full suite: 3 test cases", "mutant src/calc.js:5: full suite: 3 test cases"]);
    expect(judgment.timings["mutants-selected"]).toBeUndefined();
    expect(judgment.timings["mutants-full"]).toBeGreaterThan(0);
  }, 240_000);
});

describe("diff.needed through the policy's tests.select (node --test by name)", () => {
  it("runs the watched tests first, by name, since the runner names no file; the unneeded hunk is confirmed by the full suite", async () => {
    const judgment = await judged("node-calc", "select-mul");
    expect(failing(judgment)).toEqual(["diff.needed: hunks no test needs: src/calc.js:9"]);
    const claim = needed(judgment);
    expect(claim.details[0]?.message).toBe("each mutant first ran the selected tests: the watched tests, by name (the report names no file), 3 of the suite's 11 test cases, through the policy's tests.select; a mutant they did not kill then ran the full suite");
    expect(claim.details.find((d) => d.kind === "needed")?.message).toMatch(/^src\/calc\.js:13-17: needed by .*mul multiplies two numbers.* \(in a run of the selected tests\)$/);
    expect(claim.details).toContainEqual({ kind: "unneeded", path: "src/calc.js", line: 9, message: "src/calc.js:9: no test changes its outcome without this change (the selected tests, then the full suite)" });
    // node --test reports the tests it left out as skipped: the selected runs list all 11, 3 of them run.
    expect(runsOf(claim).sort()).toEqual([
      "mutant src/calc.js:13-17: selected tests: 11 test cases",
      "mutant src/calc.js:9: full suite: 11 test cases",
      "mutant src/calc.js:9: selected tests: 11 test cases",
      "mutants' reference: selected tests: 11 test cases",
    ]);
  }, 240_000);
});
