import { describe, expect, it } from "vitest";
import { neededEvidence, type PreparedMutants } from "../../src/judge/mutants.js";
import { hunksOf } from "../../src/measure/needed/hunks.js";
import type { MutantRun, MutantSelection } from "../../src/measure/plan.js";
import type { SuiteRun, TestCaseResult } from "../../src/measure/report-types.js";

// How diff.needed reads a mutant's runs when it ran the selected tests first: a selection can cost a
// mutant a second run, never make a needed hunk look unneeded.

function run(cases: [string, TestCaseResult["result"]][]): SuiteRun {
  const command = { exitCode: 0, signal: null, timedOut: false, durationMs: 1, outputTail: "", outputBytes: 0, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null };
  return {
    label: "head", setup: null, command, reportError: null,
    report: { cases: cases.map(([id, result]) => ({ id, file: id.split("::")[0] ?? null, name: id, result })), digest: "sha256:0", duplicates: [], loadErrors: [], notes: [] },
  };
}

const [hunk] = hunksOf("src/calc.py", "a\n", "b\n");
const prepared: PreparedMutants = {
  specs: [{ id: 0, of: "head", treeDir: "/nonexistent", readonly: [] }], selectionTree: null, hunks: new Map([[0, hunk!]]), unchecked: [], of: "head",
};
const base = run([["t/a.py::near", "passed"], ["t/z.py::far", "passed"]]);
const reference = run([["t/a.py::near", "passed"], ["t/z.py::far", "passed"]]);
const selectedReference = run([["t/a.py::near", "passed"]]);
const selection: MutantSelection = { used: true, how: "pytest plugin", files: ["t/a.py"], ids: ["t/a.py::near"], suiteCases: 2, reference: selectedReference };

const evidence = (runs: MutantRun[]) => neededEvidence("sha256:s", prepared, runs, reference, base, [], selection).evidence;

describe("diff.needed after a run of the selected tests", () => {
  it("a mutant the selected tests do not kill and the full suite does is needed, named by the test the selection left out", () => {
    const found = evidence([{ id: 0, selected: run([["t/a.py::near", "passed"]]), run: run([["t/a.py::near", "passed"], ["t/z.py::far", "failed"]]) }]);
    expect(found.outcome).toBe("pass");
    expect(found.details[1]?.message).toBe("src/calc.py:1: needed by t/z.py::far (in the full suite; the selected tests did not kill it)");
  });

  it("a mutant the selected tests do not kill is never unneeded without the full suite: out of time, it is not checked", () => {
    const found = evidence([{ id: 0, selected: run([["t/a.py::near", "passed"]]), run: null, why: "the selected tests did not kill it, and the needed.timeout of 600 s ran out before the full suite could" }]);
    expect(found.outcome).toBe("fail");
    expect(found.details[1]).toMatchObject({ kind: "not-checked" });
    expect(found.reason).toContain("hunks not checked");
    expect(found.reason).not.toContain("hunks no test needs");
  });

  it("a mutant the selected tests kill is needed without a full run; the kill is read against the selected tests' own run", () => {
    const found = evidence([{ id: 0, selected: run([["t/a.py::near", "failed"]]), run: null }]);
    expect(found.outcome).toBe("pass");
    expect(found.details[1]?.message).toBe("src/calc.py:1: needed by t/a.py::near (in a run of the selected tests)");
    expect(found.runs?.map((r) => r.run)).toEqual(["mutants' reference: selected tests", "mutant src/calc.py:1: selected tests"]);
  });
});
