import { describe, expect, it } from "vitest";
import { stripCanary } from "../../src/measure/canary.js";
import { canaryFindings } from "../../src/measure/tests/canary-findings.js";
import type { Detail } from "../../src/kernel/types.js";
import type { CaseResult, SuiteRun, TestCaseResult, TestReport } from "../../src/measure/report-types.js";
import type { CanaryMember } from "../../src/runners/types.js";

// A canary compiled into every test binary (a Go package, a Rust target; issue 19), judged with that
// binary's own tests (pure): the stripped report, then what tests.regression reads from it.
const go = (pkg: string, name: string, result: CaseResult, file: string | null = null): TestCaseResult => ({ id: `${pkg}/${name}`, file, name, result });
const binary = (pkg: string, folder: string): NonNullable<CanaryMember["inBinary"]> => ({ label: pkg, ids: `^${pkg.replace(/\./g, "\\.")}/(?:Test|Example|Fuzz)`, folder });
const family = (pkg: string, folder: string, names: [string, string]): CanaryMember[] => [
  { name: names[0], via: "go t.Fatalf", expect: "fail", inBinary: binary(pkg, folder), file: `${folder === "" ? "" : `${folder}/`}canary_test.go` },
  { name: names[1], via: "go t.Fatalf", expect: "pass", inBinary: binary(pkg, folder), file: `${folder === "" ? "" : `${folder}/`}canary_test.go` },
];
const MEMBERS = [...family("example.com/calc", "", ["TestSortsEmptyRow", "TestReadsLongKey"]), ...family("example.com/calc/stats", "stats", ["TestMapsBlankPath", "TestTrimsShortRow"])];
const placed = { name: "TestSortsEmptyRow", runners: ["go"], notes: [], members: MEMBERS, treeFiles: ["canary_test.go", "stats/canary_test.go"] };

function judged(cases: TestCaseResult[], loadErrors: string[] = []): { message: string | null; outcome: SuiteRun["canary"] } {
  const report: TestReport = { cases, digest: "sha256:x", duplicates: [], loadErrors, notes: [] };
  const { report: stripped, outcome } = stripCanary(report, placed);
  const run = { label: "head", setup: null, command: null, report: stripped, reportError: null, canary: outcome } as unknown as SuiteRun;
  const details: Detail[] = [];
  return { message: canaryFindings(run, details), outcome };
}

const HONEST_ROOT = [go("example.com/calc", "TestAdd", "passed"), go("example.com/calc", "TestSortsEmptyRow", "failed"), go("example.com/calc", "TestReadsLongKey", "passed")];

describe("a canary in every test binary", () => {
  it("every binary's canaries as they must be: nothing to say", () => {
    const { message } = judged([...HONEST_ROOT, go("example.com/calc/stats", "TestTotal", "passed"), go("example.com/calc/stats", "TestMapsBlankPath", "failed"), go("example.com/calc/stats", "TestTrimsShortRow", "passed")]);
    expect(message).toBeNull();
  });

  it("a binary whose own tests were reported but whose canaries were not (it ended early, or its output was forged) voids the run", () => {
    const { message, outcome } = judged([...HONEST_ROOT, go("example.com/calc/stats", "TestTotal", "passed")]);
    expect(outcome?.members?.find((m) => m.name === "TestMapsBlankPath")?.inBinary).toEqual({ label: "example.com/calc/stats", othersRan: true, otherPassed: true, died: false });
    expect(message).toContain("the test run reported results that did not happen");
    expect(message).toContain("TestMapsBlankPath (fails through go t.Fatalf, in example.com/calc/stats's test binary) was not reported while that binary's own tests were");
    // The other binary's canaries were there: it is not named.
    expect(message).not.toContain("TestSortsEmptyRow");
  });

  it("a binary that visibly died (a test that did not finish, a load error in its folder) or did not run is no forgery", () => {
    expect(judged([...HONEST_ROOT, go("example.com/calc/stats", "TestTotal", "errored")]).message).toBeNull();
    expect(judged([...HONEST_ROOT, go("example.com/calc/stats", "TestTotal", "failed", "stats/stats_test.go")], ["stats/stats_test.go"]).message).toBeNull();
    expect(judged(HONEST_ROOT).message).toBeNull();
    // A failure of its own does not excuse it: a run that keeps a known red test red and forges the rest.
    expect(judged([...HONEST_ROOT, go("example.com/calc/stats", "TestTotal", "failed")]).message).toContain("TestMapsBlankPath");
  });

  it("a load error of one binary's canary file errors only that binary's canaries; a must-pass one failing where nothing of its binary passed says nothing", () => {
    const { message, outcome } = judged([...HONEST_ROOT, go("example.com/calc/stats", "TestTotal", "failed", "stats/stats_test.go")], ["stats/canary_test.go", "stats/stats_test.go"]);
    expect(outcome?.members?.map((m) => m.result)).toEqual(["failed", "passed", "errored", "errored"]);
    expect(message).toBeNull();
  });

  it("a must-fail canary reported passed in any binary voids the run", () => {
    const { message } = judged([...HONEST_ROOT, go("example.com/calc/stats", "TestTotal", "passed"), go("example.com/calc/stats", "TestMapsBlankPath", "passed"), go("example.com/calc/stats", "TestTrimsShortRow", "passed")]);
    expect(message).toContain("TestMapsBlankPath (fails through go t.Fatalf, in example.com/calc/stats's test binary) was reported passed");
  });
});
