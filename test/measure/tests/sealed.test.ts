import { describe, expect, it } from "vitest";
import { sealedClaim } from "../../../src/measure/tests/sealed.js";
import { summariseSealed, WITHHELD_OUTPUT } from "../../../src/measure/sealed-summary.js";
import type { SealedRunName, SuiteRun, TestCaseResult } from "../../../src/measure/report-types.js";
import type { RunResult } from "../../../src/sandbox/types.js";

// What leaves the measuring process of the sealed runs, and the claim read from it (issue 20). The
// runs are built by hand here; test/judge/sealed.test.ts measures real ones.

const KEY = Buffer.alloc(32, 7);
const FILE = "tests/acceptance/test_hidden.py";
const SECRET_OUTPUT = "SECRET-OUTPUT-of-a-sealed-run test_hidden_alpha";

const command = (exitCode: number | null, extra: Partial<RunResult> = {}): RunResult => ({
  exitCode, signal: null, timedOut: false, durationMs: 1200, outputTail: SECRET_OUTPUT, outputBytes: 50, outputTruncated: false,
  peakMemoryBytes: null, cpuMs: null, violation: null, ...extra,
});
const cases = (...list: [string, TestCaseResult["result"]][]): TestCaseResult[] =>
  list.map(([id, result]) => ({ id, file: id.split("::")[0] ?? null, name: id.split("::")[1] ?? id, result, message: `${SECRET_OUTPUT} ${id}` }));
const run = (label: SealedRunName, exitCode: number | null, found: TestCaseResult[], extra: Partial<SuiteRun> = {}): SuiteRun => ({
  label, setup: null, command: command(exitCode), reportError: null,
  report: { cases: found, digest: "sha256:r", duplicates: [], loadErrors: [], notes: [`unmapped ${FILE}`] }, ...extra,
});
const leaks = (value: unknown): boolean => /test_hidden|SECRET-OUTPUT|acceptance/.test(JSON.stringify(value));

describe("the sealed runs' summary and tests.sealed", () => {
  it("pass: red on base, green on head, by short id only; tests outside the sealed files are not counted", () => {
    const base = run("sealed-base", 1, cases([`${FILE}::test_hidden_alpha`, "failed"], ["tests/test_other.py::test_x", "passed"]));
    const head = run("sealed-head", 0, cases([`${FILE}::test_hidden_alpha`, "passed"], ["tests/test_other.py::test_x", "passed"]));
    const outcome = summariseSealed(KEY, [FILE], base, head);
    expect(outcome).toMatchObject({ opened: true, files: 1, problems: [], unsafe: false });
    const evidence = sealedClaim("sha256:s", outcome, "sha256:box");
    expect(evidence).toMatchObject({ outcome: "pass", reason: "all 1 sealed tests fail on base and pass on head", meta: { sealed: "sha256:box", files: 1, tests: 1 } });
    expect(evidence.runs?.map((r) => r.outputTail)).toEqual([WITHHELD_OUTPUT, WITHHELD_OUTPUT]);
    expect(leaks(outcome)).toBe(false);
    expect(leaks(evidence)).toBe(false);
  });

  it("a sealed file that cannot load on base is red there; a passing base, a failing head and an absent test fail, by count", () => {
    const base = run("sealed-base", 0, cases([`${FILE}::test_hidden_b`, "passed"]));
    const head = run("sealed-head", 1, cases([`${FILE}::test_hidden_b`, "passed"], [`${FILE}::test_hidden_c`, "failed"]));
    const loadBase = run("sealed-base", 1, []);
    loadBase.report!.loadErrors = [FILE];
    const redByLoad = summariseSealed(KEY, [FILE], loadBase, run("sealed-head", 0, cases([`${FILE}::test_hidden_a`, "passed"])));
    expect(sealedClaim("s", redByLoad, "d").outcome).toBe("pass");
    const mixed = sealedClaim("s", summariseSealed(KEY, [FILE], base, head), "d");
    expect(mixed.outcome).toBe("fail");
    expect(mixed.reason).toBe("1 of 2 sealed tests do not pass on head; 1 of 2 sealed tests already pass on base (the details list them by id)");
    expect(leaks(mixed)).toBe(false);
  });

  it("a forged result (the canary passed) is unsafe, a timed-out or reportless run fails without its output, and no sealed test collected fails", () => {
    const base = run("sealed-base", 1, cases([`${FILE}::test_hidden_a`, "failed"]));
    const forgedHead = run("sealed-head", 0, cases([`${FILE}::test_hidden_a`, "passed"]), { canary: { name: "test_ranex_canary_x", runners: ["pytest"], result: "passed", othersRan: true, notes: [] } });
    const forged = sealedClaim("s", summariseSealed(KEY, [FILE], base, forgedHead), "d");
    expect(forged).toMatchObject({ outcome: "fail", unsafe: true });
    expect(forged.reason).toMatch(/the gate's canary, which always fails, was reported passed/);

    const timedOut = run("sealed-head", null, [], { command: command(null, { timedOut: true, signal: "SIGKILL" }), report: null, reportError: `no JUnit report ${SECRET_OUTPUT}` });
    const slow = sealedClaim("s", summariseSealed(KEY, [FILE], base, timedOut), "d");
    expect(slow.reason).toMatch(/the sealed-head test run timed out after 1\.2 s/);
    expect(leaks(slow)).toBe(false);

    const setupFailed = run("sealed-head", null, [], { setup: command(2), command: null, report: null, reportError: SECRET_OUTPUT });
    expect(leaks(sealedClaim("s", summariseSealed(KEY, [FILE], base, setupFailed), "d"))).toBe(false);

    const none = sealedClaim("s", summariseSealed(KEY, [FILE], base, run("sealed-head", 0, cases(["tests/test_other.py::test_x", "passed"]))), "d");
    expect(none.reason).toMatch(/no sealed test was collected on head/);
  });

  it("a box that does not open is a failure with the maintainer's remedy", () => {
    expect(sealedClaim("s", { opened: false, reason: "the sealed file does not open with the gate's sealing key" }, "d")).toMatchObject({
      outcome: "fail", reason: "cannot judge the sealed tests: the sealed file does not open with the gate's sealing key",
    });
  });
});
