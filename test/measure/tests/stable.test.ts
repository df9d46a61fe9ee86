import { describe, expect, it } from "vitest";
import { flakyIds, stableClaim } from "../../../src/measure/tests/stable.js";
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
