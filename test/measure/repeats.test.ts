import { describe, expect, it } from "vitest";
import { repeatIds } from "../../src/measure/repeats.js";
import { regressionClaim } from "../../src/measure/tests/regression.js";
import type { RunName, SuiteRun, TestCaseResult } from "../../src/measure/report-types.js";

function run(label: RunName, cases: [string, TestCaseResult["result"]][]): SuiteRun {
  const command = { exitCode: cases.some(([, r]) => r !== "passed") ? 1 : 0, signal: null, timedOut: false, durationMs: 1, outputTail: "", outputBytes: 0, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null };
  return {
    label, setup: null, command, reportError: null,
    report: { cases: cases.map(([id, result]) => ({ id, file: id.split("::")[0] ?? null, name: id, result })), digest: "sha256:0", duplicates: [], loadErrors: [], notes: [] },
  };
}

describe("which tests tests.stable repeats, and where", () => {
  it("repeats task targets on base and head, the PR's own tests on base+new and head+new, and regression suspects on base and head", () => {
    const runs = {
      base: run("base", [["t/a.py::ok", "passed"], ["t/a.py::wobbly", "passed"], ["t/a.py::fix", "failed"]]),
      head: run("head", [["t/a.py::ok", "passed"], ["t/a.py::wobbly", "failed"], ["t/a.py::fix", "passed"]]),
      "base+new": run("base+new", [["t/new.py::mine", "failed"]]),
      "head+new": run("head+new", [["t/a.py::ok", "passed"], ["t/a.py::wobbly", "failed"], ["t/a.py::fix", "passed"], ["t/new.py::mine", "passed"]]),
    };
    const ids = repeatIds(["t/a.py::fix"], ["t/new.py"], runs);
    expect(ids.get("base")).toEqual(["t/a.py::fix", "t/a.py::wobbly"]);
    expect(ids.get("head")).toEqual(["t/a.py::fix", "t/a.py::wobbly"]);
    expect(ids.get("base+new")).toEqual(["t/new.py::mine"]);
    expect(ids.get("head+new")).toEqual(["t/new.py::mine"]);
  });
});

describe("tests.regression with repeats of the base", () => {
  const base = run("base", [["t/a.py::ok", "passed"], ["t/a.py::wobbly", "passed"]]);
  const head = run("head", [["t/a.py::ok", "passed"], ["t/a.py::wobbly", "failed"]]);

  it("blames a test that passed on base and fails on head", () => {
    const evidence = regressionClaim("sha256:s", base, head, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toContain("t/a.py::wobbly");
  });

  it("shows its runs on each side when it was repeated", () => {
    const steady = { outcomes: () => ({ base: ["passed", "passed", "passed"], head: ["failed", "failed", "failed"] }), stableJudges: true };
    const evidence = regressionClaim("sha256:s", base, head, [], [], new Set(), undefined, steady);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.details.find((d) => d.kind === "regressed")?.message).toBe("t/a.py::wobbly passed on base, failed on head (runs: base passed, passed, passed; head failed, failed, failed)");
  });

  it("leaves a test flaky on the head to tests.stable when it judges, and otherwise fails it saying it is flaky", () => {
    const outcomes = () => ({ base: ["passed", "passed", "passed"], head: ["failed", "passed", "passed"] });
    const judged = regressionClaim("sha256:s", base, head, [], [], new Set(), undefined, { outcomes, stableJudges: true });
    expect(judged.outcome).toBe("pass");
    expect(judged.details.find((d) => d.kind === "flaky")?.message).toBe("t/a.py::wobbly passed on base, failed on head (runs: base passed, passed, passed; head failed, passed, passed): its outcome changes between runs of the head, so no regression is shown; tests.stable fails it as flaky");
    const alone = regressionClaim("sha256:s", base, head, [], [], new Set(), undefined, { outcomes, stableJudges: false });
    expect(alone.outcome).toBe("fail");
    expect(alone.details.find((d) => d.kind === "regressed")?.message).toContain("; its outcome changes between runs of the head: flaky there (the machine's load or this change)");
  });

  it("lists it as flaky, not the change's doing, when its outcome changed between repeats of the base", () => {
    const evidence = regressionClaim("sha256:s", base, head, [], [], new Set(["t/a.py::wobbly"]));
    expect(evidence.outcome).toBe("pass");
    expect(evidence.details.find((d) => d.kind === "flaky")?.message).toContain("t/a.py::wobbly");
  });
});
