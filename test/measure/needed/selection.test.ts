import { describe, expect, it } from "vitest";
import { chooseMutantTests, selectionProblem, watchedIds } from "../../../src/measure/needed/selection.js";
import type { SuiteRun, TestCaseResult, TestReport } from "../../../src/measure/report-types.js";

function report(cases: [string, TestCaseResult["result"], string | null][], loadErrors: string[] = []): TestReport {
  return {
    cases: cases.map(([id, result, file]) => ({ id, file, name: id, result })),
    digest: "sha256:0", duplicates: [], loadErrors, notes: [],
  };
}
function run(r: TestReport | null, timedOut = false): SuiteRun {
  const command = { exitCode: timedOut ? null : 0, signal: null, timedOut, durationMs: 1, outputTail: "", outputBytes: 0, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null };
  return { label: "head", setup: null, command, report: r, reportError: r === null ? "no JUnit report" : null };
}

// A suite of 12 cases: a.py and b.py hold watched tests, backlog.py only tests red on the base.
const suite = report([
  ["t/a.py::one", "passed", "t/a.py"], ["t/a.py::red", "failed", "t/a.py"],
  ["t/b.py::target", "passed", "t/b.py"],
  ...Array.from({ length: 9 }, (_, i): [string, TestCaseResult["result"], string] => [`t/backlog.py::b${i}`, "failed", "t/backlog.py"]),
]);
const watched = new Set(["t/a.py::one", "t/b.py::target"]);

describe("which tests a mutant runs first", () => {
  it("watches the targets and every test green on the base; one copy of a shared id watches the id", () => {
    const base = run(report([["t/a.py::one", "passed", "t/a.py"], ["t/a.py::red", "failed", "t/a.py"]]));
    const ids = watchedIds([{ id: "t/b.py::target", origin: "task" }, { id: "t/new.py::same#2", origin: "new-file" }], base);
    expect([...ids].sort()).toEqual(["t/a.py::one", "t/b.py::target", "t/new.py::same", "t/new.py::same#2"]);
  });

  it("selects every test of each file that holds a watched test, unwatched ones in those files included", () => {
    expect(chooseMutantTests(suite, watched, 2)).toEqual({ ids: ["t/a.py::one", "t/a.py::red", "t/b.py::target"], files: ["t/a.py", "t/b.py"], suiteCases: 12 });
  });

  it("selects a watched test by id when the report names no file for it", () => {
    const noFiles = report([["one", "passed", null], ["target", "passed", null], ["red", "failed", null], ["red2", "failed", null], ["red3", "failed", null], ["red4", "failed", null]]);
    expect(chooseMutantTests(noFiles, new Set(["target"]), 1)).toEqual({ ids: ["target"], files: [], suiteCases: 6 });
  });

  it("runs the full suite when selecting would not halve the cost, counting the selection's own reference run", () => {
    // 3 of 12 cases: 2 mutants cost 3 selected runs (9 cases) against 24 cases of full suites, at most half: selected.
    expect("ids" in chooseMutantTests(suite, watched, 2)).toBe(true);
    // One mutant: 2 selected runs (6 cases) against one full suite (12 cases): exactly half, still selected.
    expect("ids" in chooseMutantTests(suite, watched, 1)).toBe(true);
    const bigger = report([...suite.cases.slice(0, 3).map((c): [string, TestCaseResult["result"], string | null] => [c.id, c.result, c.file]), ["t/backlog.py::only", "failed", "t/backlog.py"]]);
    expect(chooseMutantTests(bigger, watched, 20)).toEqual({ why: "the files of the watched tests hold 3 of the suite's 4 test cases: selecting them would not be cheaper for 20 mutants" });
  });

  it("runs the full suite when the reference holds no watched test", () => {
    expect(chooseMutantTests(suite, new Set(["t/gone.py::x"]), 3)).toEqual({ why: "the reference run holds no watched test" });
  });
});

describe("whether the selected tests can stand in for the full suite", () => {
  const ids = ["t/a.py::one", "t/a.py::red", "t/b.py::target"];
  const same = report([["t/a.py::one", "passed", "t/a.py"], ["t/a.py::red", "failed", "t/a.py"], ["t/b.py::target", "passed", "t/b.py"]]);

  it("they can when every watched test among them has the full run's outcome", () => {
    expect(selectionProblem(suite, run(same), ids, watched)).toBeNull();
    // An unwatched test that changes does not matter: no mutant is judged by it.
    const redGreen = report([["t/a.py::one", "passed", "t/a.py"], ["t/a.py::red", "passed", "t/a.py"], ["t/b.py::target", "passed", "t/b.py"]]);
    expect(selectionProblem(suite, run(redGreen), ids, watched)).toBeNull();
  });

  it("they cannot when a watched test depends on a test left out (it would read as killed by every mutant)", () => {
    const lonely = report([["t/a.py::one", "passed", "t/a.py"], ["t/a.py::red", "failed", "t/a.py"], ["t/b.py::target", "failed", "t/b.py"]]);
    expect(selectionProblem(suite, run(lonely), ids, watched)).toBe("the selected tests did not give the full run's outcomes (t/b.py::target)");
  });

  it("they cannot when the selection ran other tests, did not run, or made a file fail to load", () => {
    const all = report([...same.cases.map((c): [string, TestCaseResult["result"], string | null] => [c.id, c.result, c.file]), ["t/backlog.py::b0", "failed", "t/backlog.py"]]);
    expect(selectionProblem(suite, run(all), ids, watched)).toBe("the selection ran tests it was not given (t/backlog.py::b0)");
    // What the runner left out and reports skipped did not run (node --test --test-name-pattern).
    const leftOut = report([...same.cases.map((c): [string, TestCaseResult["result"], string | null] => [c.id, c.result, c.file]), ["t/backlog.py::b0", "skipped", "t/backlog.py"]]);
    expect(selectionProblem(suite, run(leftOut), ids, watched)).toBeNull();
    expect(selectionProblem(suite, run(null), ids, watched)).toBe("the run of the selected tests has no report (no JUnit report)");
    expect(selectionProblem(suite, run(same, true), ids, watched)).toBe("the run of the selected tests timed out");
    expect(selectionProblem(suite, run(report(same.cases.map((c) => [c.id, c.result, c.file]), ["t/b.py"])), ids, watched)).toBe("with the selection, t/b.py failed to load");
  });
});
