import { describe, expect, it } from "vitest";
import { collectTargets } from "../../../src/measure/tests/targets.js";
import { redGreenClaim } from "../../../src/measure/tests/red-green.js";
import type { SuiteRun } from "../../../src/measure/report-types.js";
import { runSuite } from "./real-run.js";

// Real pytest runs: the base tree has the PR's new test file overlaid, the head tree is the PR.
const SUBJECT = "sha256:subject";
const OLD_TEST = "from calc import add\n\ndef test_add():\n    assert add(1, 1) == 2\n";
const BASE_CALC = "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return 0\n";
const HEAD_CALC = "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return a * b\n";
const NEW_TEST = "from calc import mul\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";

function files(calc: string, extra: Record<string, string> = {}): Record<string, string> {
  return { "calc.py": calc, "tests/test_calc.py": OLD_TEST, ...extra };
}

async function runs(baseCalc: string, headCalc: string, newTest = NEW_TEST): Promise<{ base: SuiteRun; head: SuiteRun }> {
  const [base, head] = await Promise.all([
    runSuite("base", files(baseCalc, { "tests/test_mul.py": newTest })),
    runSuite("head", files(headCalc, { "tests/test_mul.py": newTest })),
  ]);
  return { base, head };
}

describe("collectTargets", () => {
  it("takes the task's targets and every head test in the PR's new files", async () => {
    const { head } = await runs(BASE_CALC, HEAD_CALC, NEW_TEST + "\ndef test_mul_zero():\n    assert mul(0, 3) == 0\n");
    expect(collectTargets(["tests/test_calc.py::test_add"], ["tests/test_mul.py"], head)).toEqual([
      { id: "tests/test_calc.py::test_add", origin: "task" },
      { id: "tests/test_mul.py::test_mul", origin: "new-file" },
      { id: "tests/test_mul.py::test_mul_zero", origin: "new-file" },
    ]);
    // A task target in a file the PR adds is still the PR's own writing.
    expect(collectTargets(["tests/test_mul.py::test_mul"], ["tests/test_mul.py"], head)[0]).toEqual({ id: "tests/test_mul.py::test_mul", origin: "new-file" });
  });
});

describe("tests.red_green", () => {
  it("passes when every target fails on base and passes on head, flagging self-authored files", async () => {
    const { base, head } = await runs(BASE_CALC, HEAD_CALC);
    const evidence = redGreenClaim(SUBJECT, { base: base, head: head, baseNew: null, headNew: null }, collectTargets([], ["tests/test_mul.py"], head));
    expect(evidence.outcome).toBe("pass");
    expect(evidence.reason).toBe("all 1 target tests fail on base and pass on head");
    expect(evidence.details).toEqual([
      { kind: "self-authored", path: "tests/test_mul.py", message: "self-authored: a reviewer should read it" },
      { kind: "red-green", path: "tests/test_mul.py", message: "tests/test_mul.py::test_mul: failed on base, passed on head" },
    ]);
  });

  it("fails a target that already passes on base", async () => {
    const { base, head } = await runs(HEAD_CALC, HEAD_CALC);
    const evidence = redGreenClaim(SUBJECT, { base: base, head: head, baseNew: null, headNew: null }, [{ id: "tests/test_mul.py::test_mul", origin: "new-file" }]);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("targets that do not fail on base: tests/test_mul.py::test_mul");
  });

  it("fails a target still failing on head, and a skipped one", async () => {
    const { base, head } = await runs(BASE_CALC, BASE_CALC);
    const target = [{ id: "tests/test_mul.py::test_mul", origin: "task" as const }];
    expect(redGreenClaim(SUBJECT, { base: base, head: head, baseNew: null, headNew: null }, target).reason).toBe("targets that do not pass on head: tests/test_mul.py::test_mul");
    const skipped = await runSuite("head", files(HEAD_CALC, { "tests/test_mul.py": `import pytest\n${NEW_TEST.replace("def test_mul", "@pytest.mark.skip(reason='x')\ndef test_mul")}` }));
    const evidence = redGreenClaim(SUBJECT, { base: base, head: skipped, baseNew: null, headNew: null }, target);
    expect(evidence.reason).toBe("targets that do not pass on head: tests/test_mul.py::test_mul");
    expect(evidence.details).toContainEqual(expect.objectContaining({ message: "tests/test_mul.py::test_mul: failed on base, skipped on head (not green on head)" }));
  });

  it("counts a target whose file cannot load on base as red, but not one simply absent", async () => {
    // On base, `from calc import div` fails: the whole file fails to collect.
    const newTest = "from calc import div\n\ndef test_div():\n    assert div(6, 3) == 2\n";
    const headCalc = `${HEAD_CALC}\ndef div(a, b):\n    return a / b\n`;
    const { base, head } = await runs(BASE_CALC, headCalc, newTest);
    expect(base.report?.loadErrors).toEqual(["tests/test_mul.py"]);
    const evidence = redGreenClaim(SUBJECT, { base: base, head: head, baseNew: null, headNew: null }, [{ id: "tests/test_mul.py::test_div", origin: "new-file" }]);
    expect(evidence.outcome).toBe("pass");
    expect(evidence.details).toContainEqual(expect.objectContaining({ message: "tests/test_mul.py::test_div: its file failed to load on base, passed on head" }));

    const absent = redGreenClaim(SUBJECT, { base: base, head: head, baseNew: null, headNew: null }, [{ id: "tests/test_calc.py::test_not_written_yet", origin: "task" }]);
    expect(absent.outcome).toBe("fail");
    expect(absent.reason).toBe("targets that do not fail on base: tests/test_calc.py::test_not_written_yet; targets that do not pass on head: tests/test_calc.py::test_not_written_yet");
  });

  it("with no targets the evidence is absent, telling the person what to add", async () => {
    const { base, head } = await runs(BASE_CALC, HEAD_CALC);
    const evidence = redGreenClaim(SUBJECT, { base: base, head: head, baseNew: null, headNew: null }, []);
    expect(evidence).toMatchObject({ outcome: "absent", reason: "no target tests: name the target tests in a task manifest, or add new tests" });
  });

  it("fails when the head report is missing", async () => {
    const { base } = await runs(BASE_CALC, HEAD_CALC);
    const head = await runSuite("head", files(HEAD_CALC), { command: "true" });
    const evidence = redGreenClaim(SUBJECT, { base: base, head: head, baseNew: null, headNew: null }, [{ id: "tests/test_mul.py::test_mul", origin: "task" }]);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("cannot judge the targets: head: no JUnit report at $RANEX_JUNIT: the test command wrote none (the test command exited 0 after "
      + `${((head.command?.durationMs ?? 0) / 1000).toFixed(1)} s, printing nothing)`);
  });
});
