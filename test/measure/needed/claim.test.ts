import { describe, expect, it } from "vitest";
import { killers, mutantResult, neededClaim } from "../../../src/measure/needed/claim.js";
import { hunksOf } from "../../../src/measure/needed/hunks.js";
import type { SuiteRun, TestCaseResult, TestReport } from "../../../src/measure/report-types.js";

function report(cases: [string, TestCaseResult["result"]][], loadErrors: string[] = []): TestReport {
  return {
    cases: cases.map(([id, result]) => ({ id, file: id.split("::")[0] ?? null, name: id, result })),
    digest: "sha256:0", duplicates: [], loadErrors, notes: [],
  };
}
function run(r: TestReport | null, reportError: string | null = null): SuiteRun {
  return { label: "head", setup: null, command: null, report: r, reportError };
}
const [hunk] = hunksOf("src/calc.py", "a\n", "b\n");

describe("diff.needed", () => {
  const reference = report([["t.py::a", "passed"], ["t.py::b", "passed"], ["t.py::unwatched", "passed"]]);
  const watched = new Set(["t.py::a", "t.py::b"]);

  it("a mutant that flips a watched test is killed by that test", () => {
    const mutant = run(report([["t.py::a", "failed"], ["t.py::b", "passed"], ["t.py::unwatched", "passed"]]));
    expect(killers(reference, mutant, watched)).toEqual(["t.py::a"]);
  });

  it("a change only an unwatched test sees is not needed", () => {
    const mutant = run(report([["t.py::a", "passed"], ["t.py::b", "passed"], ["t.py::unwatched", "failed"]]));
    const result = mutantResult(hunk!, reference, mutant, watched);
    expect(result.status).toBe("survived");
    const evidence = neededClaim("sha256:s", [result]);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("hunks no test needs: src/calc.py:1");
    expect(evidence.details[0]).toMatchObject({ kind: "unneeded", path: "src/calc.py", line: 1 });
  });

  it("a mutant that breaks the run is killed by the run", () => {
    expect(killers(reference, run(null, "no JUnit report"), watched)).toEqual(["(the test run: no JUnit report)"]);
    expect(killers(reference, run(report([], ["t.py"])), watched)).toEqual(["t.py::a", "t.py::b", "(t.py failed to load)"]);
  });

  it("hunks not checked fail the claim, never pass silently", () => {
    const evidence = neededClaim("sha256:s", [{ hunk: hunk!, status: "not-checked", killedBy: [], why: "beyond needed.max_hunks (20)" }]);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toContain("hunks not checked: src/calc.py:1 (beyond needed.max_hunks (20))");
  });

  it("passes when every hunk is needed, naming who needed it", () => {
    const evidence = neededClaim("sha256:s", [{ hunk: hunk!, status: "killed", killedBy: ["t.py::a"] }]);
    expect(evidence.outcome).toBe("pass");
    expect(evidence.details[0]?.message).toBe("src/calc.py:1: needed by t.py::a");
  });

  it("says which tests decided each hunk, and which tests the mutants ran, before the hunks", () => {
    const [other] = hunksOf("src/other.py", "a\n", "b\n");
    const evidence = neededClaim("sha256:s", [
      { hunk: hunk!, status: "killed", killedBy: ["t.py::a"], suite: "selected" },
      { hunk: other!, status: "survived", killedBy: [], suite: "selected, then full" },
    ], "each mutant first ran the selected tests: …");
    expect(evidence.details.map((d) => [d.kind, d.message])).toEqual([
      ["selection", "each mutant first ran the selected tests: …"],
      ["needed", "src/calc.py:1: needed by t.py::a (in a run of the selected tests)"],
      ["unneeded", "src/other.py:1: no test changes its outcome without this change (the selected tests, then the full suite)"],
    ]);
    expect(evidence.reason).toBe("hunks no test needs: src/other.py:1");
    const later = neededClaim("sha256:s", [{ hunk: hunk!, status: "killed", killedBy: ["t.py::b"], suite: "selected, then full" }]);
    expect(later.details[0]?.message).toBe("src/calc.py:1: needed by t.py::b (in the full suite; the selected tests did not kill it)");
  });
});
