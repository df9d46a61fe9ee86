import { describe, expect, it } from "vitest";
import { flakyIds, headFlakySuspects, stableClaim } from "../../../src/measure/tests/stable.js";
import type { SuiteRun, TestCaseResult } from "../../../src/measure/report-types.js";

function run(cases: [string, TestCaseResult["result"]][]): SuiteRun {
  return {
    label: "head", setup: null, command: null, reportError: null,
    report: { cases: cases.map(([id, result]) => ({ id, file: "t.py", name: id, result })), digest: "sha256:0", duplicates: [], loadErrors: [], notes: [] },
  };
}
const target = { id: "t.py::fix", origin: "task" as const };

describe("tests.stable", () => {
  it("fails a target that passes one time in three on the head, naming its outcomes", () => {
    const head = [run([["t.py::fix", "passed"]]), run([["t.py::fix", "failed"]]), run([["t.py::fix", "failed"]])];
    const base = [run([["t.py::fix", "failed"]]), run([["t.py::fix", "failed"]]), run([["t.py::fix", "failed"]])];
    const evidence = stableClaim("sha256:s", [target], () => ({ base, head }), 3);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("target tests changed their outcome between 3 repeats: t.py::fix");
    expect(evidence.details[0]?.message).toBe("t.py::fix: base failed, failed, failed; head passed, failed, failed");
  });

  it("fails a target whose red on the base is not reliable", () => {
    const head = [run([["t.py::fix", "passed"]]), run([["t.py::fix", "passed"]])];
    const base = [run([["t.py::fix", "failed"]]), run([["t.py::fix", "passed"]])];
    expect(stableClaim("sha256:s", [target], () => ({ base, head }), 2).outcome).toBe("fail");
  });

  it("passes when every repeat agrees, and is absent without targets", () => {
    const head = [run([["t.py::fix", "passed"]]), run([["t.py::fix", "passed"]])];
    const base = [run([["t.py::fix", "failed"]]), run([["t.py::fix", "failed"]])];
    expect(stableClaim("sha256:s", [target], () => ({ base, head }), 2).outcome).toBe("pass");
    expect(stableClaim("sha256:s", [], () => ({ base, head }), 2).outcome).toBe("absent");
  });

  it("lists tests that flip between repeats of one tree as flaky", () => {
    expect(flakyIds([run([["a", "passed"], ["b", "passed"]]), run([["a", "failed"], ["b", "passed"]])])).toEqual(["a"]);
    expect(flakyIds([run([["a", "passed"]])])).toEqual([]);
  });
});

// Found on pillarjs/path-to-regexp (issue 22): a ReDoS check with a time budget passed on base and
// failed in the head's run under load. Repeated on both sides, a test that passed in every base run
// and changes between head runs is flaky on the head: tests.stable fails it, naming its runs, rather
// than tests.regression calling it the change's regression.
describe("regression suspects flaky on the head", () => {
  const base = [run([["t.py::budget", "passed"], ["t.py::ok", "passed"]]), run([["t.py::budget", "passed"]]), run([["t.py::budget", "passed"]])];

  it("are the suspects that passed in every base run and change between head runs", () => {
    const head = [run([["t.py::budget", "failed"], ["t.py::ok", "passed"]]), run([["t.py::budget", "passed"]]), run([["t.py::budget", "passed"]])];
    expect(headFlakySuspects(base, head, [])).toEqual([{ id: "t.py::budget", base: ["passed", "passed", "passed"], head: ["failed", "passed", "passed"] }]);
    // Failing in every head run is a regression shown, not flakiness; a target is judged as a target.
    const steady = [run([["t.py::budget", "failed"]]), run([["t.py::budget", "failed"]]), run([["t.py::budget", "failed"]])];
    expect(headFlakySuspects(base, steady, [])).toEqual([]);
    expect(headFlakySuspects(base, head, [{ id: "t.py::budget", origin: "task" }])).toEqual([]);
    // Flaky on the base already: tests.regression lists it as not the change's doing (flakyIds).
    const wobbly = [base[0]!, run([["t.py::budget", "failed"]])];
    expect(headFlakySuspects(wobbly, head, [])).toEqual([]);
  });

  it("fail tests.stable, naming their runs, even beside stable targets", () => {
    const suspects = [{ id: "t.py::budget", base: ["passed", "passed", "passed"], head: ["failed", "passed", "passed"] }];
    const targetRuns = { base: [run([["t.py::fix", "failed"]]), run([["t.py::fix", "failed"]])], head: [run([["t.py::fix", "passed"]]), run([["t.py::fix", "passed"]])] };
    const evidence = stableClaim("sha256:s", [target], () => targetRuns, 3, suspects);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("tests that passed in every run of the base changed their outcome between runs of the head: t.py::budget (flaky on head, from the machine's load or from this change: judge again, or make them stable)");
    expect(evidence.details.map((d) => `${d.kind}: ${d.message}`)).toEqual([
      "stable: t.py::fix: base failed, failed; head passed, passed",
      "flaky: t.py::budget: base passed, passed, passed; head failed, passed, passed (passed on base, not a target)",
    ]);
    expect(stableClaim("sha256:s", [], () => targetRuns, 3, suspects).outcome).toBe("fail");
  });
});

describe("repeats of selected tests", () => {
  const selected = (ids: string[], cases: [string, TestCaseResult["result"]][]): SuiteRun => ({ ...run(cases), selected: ids });

  it("count only for the ids they were asked to run", () => {
    const head = [run([["t.py::fix", "passed"], ["t.py::other", "passed"]]), selected(["t.py::fix"], [["t.py::fix", "passed"]]), selected(["t.py::other"], [["t.py::other", "passed"]]), selected(["t.py::fix"], [["t.py::fix", "passed"]])];
    const base = [run([["t.py::fix", "failed"]]), selected(["t.py::fix"], [["t.py::fix", "failed"]]), selected(["t.py::fix"], [["t.py::fix", "failed"]])];
    const evidence = stableClaim("sha256:s", [target], () => ({ base, head }), 3);
    expect(evidence.outcome).toBe("pass");
    expect(evidence.details[0]?.message).toBe("t.py::fix: base failed, failed, failed; head passed, passed, passed");
    expect(flakyIds(head)).toEqual([]);
  });

  it("still say absent for a selected target the run did not report", () => {
    const head = [run([["t.py::fix", "passed"]]), selected(["t.py::fix"], [["t.py::other", "passed"]])];
    const evidence = stableClaim("sha256:s", [target], () => ({ base: [], head }), 2);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.details[0]?.message).toBe("t.py::fix: base ; head passed, absent");
  });
});
