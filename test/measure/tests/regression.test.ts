import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJunit } from "../../../src/measure/junit.js";
import { treeResolver } from "../../../src/measure/junit-read.js";
import { regressionClaim } from "../../../src/measure/tests/regression.js";
import type { SuiteRun } from "../../../src/measure/report-types.js";
import { runSuite } from "./real-run.js";

// Every run here is a real pytest (or node --test) run over a small tree; see real-run.ts.
const SUBJECT = "sha256:subject";
const CALC = "def add(a, b):\n    return a + b\n";
const TESTS = [
  "from calc import add",
  "def test_a():\n    assert add(1, 1) == 2",
  "def test_b():\n    assert add(2, 2) == 4",
].join("\n\n") + "\n";

function tree(tests: string, extra: Record<string, string> = {}): Record<string, string> {
  return { "calc.py": CALC, "tests/test_calc.py": tests, ...extra };
}

// The plain base run is the same for most cases: run it once.
let plainBase: Promise<SuiteRun> | undefined;
const base = (): Promise<SuiteRun> => (plainBase ??= runSuite("base", tree(TESTS)));

describe("tests.regression", () => {
  it("passes when everything that passed on base passes on head, and records what it stood on", async () => {
    const evidence = regressionClaim(SUBJECT, await base(), await runSuite("head", tree(TESTS)), [], []);
    expect(evidence.outcome).toBe("pass");
    expect(evidence.reason).toBe("all 2 tests that passed on base pass on head (2 tests ran on head)");
    const head = (evidence.meta as { head: Record<string, unknown> }).head;
    expect(head["junitDigest"]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(head["command"]).toMatchObject({ exitCode: 0, timedOut: false, durationMs: expect.any(Number), outputTail: expect.stringContaining("2 passed") });
  });

  it("does not believe a head run whose reader caught its output lying (a binary that printed failures and exited 0): unsafe", async () => {
    const honest = await runSuite("head", tree(TESTS));
    const head: SuiteRun = { ...honest, report: { ...honest.report!, contradictions: ["a test binary (calc::calc) printed failed tests but exited 0: cargo did not see it fail"] } };
    const evidence = regressionClaim(SUBJECT, await base(), head, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.unsafe).toBe(true);
    expect(evidence.reason).toContain("the test run reported results that did not happen: on head, a test binary (calc::calc) printed failed tests but exited 0");
  });

  it("fails when a test that passed on base fails on head", async () => {
    const head = await runSuite("head", tree(TESTS, { "calc.py": "def add(a, b):\n    return a - b if a == 2 else a + b\n" }));
    const evidence = regressionClaim(SUBJECT, await base(), head, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("tests that passed on base do not pass on head: tests/test_calc.py::test_b");
    expect(evidence.details).toContainEqual(expect.objectContaining({ kind: "regressed", path: "tests/test_calc.py" }));
  });

  it("fails when a test vanishes, or becomes skipped or xfail", async () => {
    const vanished = await runSuite("head", tree(TESTS.replace("def test_b", "def helper_b")));
    expect(regressionClaim(SUBJECT, await base(), vanished, [], []).reason).toBe("tests vanished on head: tests/test_calc.py::test_b");
    const skipped = await runSuite("head", tree(TESTS.replace("def test_b", "import pytest\n@pytest.mark.skip(reason='later')\ndef test_b")));
    expect(regressionClaim(SUBJECT, await base(), skipped, [], []).details).toContainEqual(expect.objectContaining({
      kind: "regressed", message: "tests/test_calc.py::test_b passed on base, skipped on head: later",
    }));
    const xfail = await runSuite("head", tree(TESTS.replace("def test_b():\n    assert add(2, 2) == 4", "import pytest\n@pytest.mark.xfail(reason='meh')\ndef test_b():\n    assert False")));
    const evidence = regressionClaim(SUBJECT, await base(), xfail, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.details.map((d) => d.message)).toContain("tests/test_calc.py::test_b passed on base, xfail on head: meh");
  });

  it("lets a non-target test already red on base stay red, listing it", async () => {
    const red = TESTS + "\ndef test_spec_of_another_task():\n    assert add(1, 2) == 4\n";
    const evidence = regressionClaim(SUBJECT, await runSuite("base", tree(red)), await runSuite("head", tree(red)), [], []);
    expect(evidence.outcome).toBe("pass");
    expect(evidence.details).toEqual([expect.objectContaining({ kind: "already-red", path: "tests/test_calc.py" })]);
  });

  it("a test of a frozen file may not disappear, even one that was red", async () => {
    const red = TESTS + "\ndef test_spec_of_another_task():\n    assert add(1, 2) == 4\n";
    const baseRun = await runSuite("base", tree(red));
    const head = await runSuite("head", tree(TESTS));
    expect(regressionClaim(SUBJECT, baseRun, head, [], []).outcome).toBe("pass");
    const evidence = regressionClaim(SUBJECT, baseRun, head, [], ["tests/test_calc.py"]);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("tests vanished on head: tests/test_calc.py::test_spec_of_another_task");
    expect(evidence.details).toContainEqual(expect.objectContaining({ kind: "frozen-missing" }));
  });

  it("a red result a frozen file gives on head and not on base is a regression (a case generated from data the change altered)", async () => {
    const tests = "import pytest\nfrom calc import add, CASES\n\n@pytest.mark.parametrize('a,b,want', CASES)\ndef test_add(a, b, want):\n    assert add(a, b) == want\n";
    const baseRun = await runSuite("base", tree(tests, { "calc.py": `${CALC}CASES = [(1, 1, 2)]\n` }));
    const head = await runSuite("head", tree(tests, { "calc.py": `${CALC}CASES = [(1, 1, 2), (2, 2, 5)]\n` }));
    expect(regressionClaim(SUBJECT, baseRun, head, [], []).outcome).toBe("pass");
    const evidence = regressionClaim(SUBJECT, baseRun, head, [], ["tests/test_calc.py"]);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("tests that passed on base do not pass on head: tests/test_calc.py::test_add[2-2-5]");
    expect(evidence.details).toContainEqual(expect.objectContaining({
      kind: "regressed", path: "tests/test_calc.py", message: expect.stringContaining("tests/test_calc.py::test_add[2-2-5] of the frozen file tests/test_calc.py is failed on head and was not on base"),
    }));
  });

  it("jest: an afterAll of a frozen file that throws on head (reported as a test of its own) is a regression", () => {
    const root = mkdtempSync(join(tmpdir(), "ranex-hook-"));
    mkdirSync(dirname(join(root, "test/lib.test.js")), { recursive: true });
    writeFileSync(join(root, "test/lib.test.js"), "");
    // Recorded from real jest runs through the gate's launcher (fixtures/junit/make-fixtures.sh).
    const recorded = (side: "base" | "head"): SuiteRun => {
      const report = parseJunit(readFileSync(join(import.meta.dirname, "..", "fixtures", "junit", `jest-hook-${side}.xml`), "utf8"), treeResolver(root));
      const command = { exitCode: side === "base" ? 0 : 1, signal: null, timedOut: false, durationMs: 1, outputTail: "", outputBytes: 0, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null };
      return { label: side, setup: null, command, report, reportError: null };
    };
    const evidence = regressionClaim(SUBJECT, recorded("base"), recorded("head"), [], ["test/lib.test.js"]);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toMatch(/^tests that passed on base do not pass on head: test\/lib\.test\.js::.*Test execution failure: could be caused by test hooks like 'afterAll'/);
    expect(evidence.details).toContainEqual(expect.objectContaining({ kind: "regressed", path: "test/lib.test.js", message: expect.stringContaining("close broke") }));
  });

  it("fails when the exit status and the report disagree (a test that exits 0 after failing)", async () => {
    // pytest writes the JUnit report at session finish; a conftest can then force the exit status.
    const lie = "import os\ndef pytest_unconfigure(config):\n    os._exit(0)\n";
    const head = await runSuite("head", tree(TESTS.replace("== 4", "== 5"), { "conftest.py": lie }));
    expect(head.command?.exitCode).toBe(0);
    const evidence = regressionClaim(SUBJECT, await base(), head, [], []);
    expect(evidence.reason).toMatch(/^the head test command exited 0 but its report has 1 failing tests or files/);
    const other = await runSuite("head", tree(TESTS, { "conftest.py": lie.replace("_exit(0)", "_exit(3)") }));
    expect(regressionClaim(SUBJECT, await base(), other, [], []).reason)
      .toBe("the head test command exited 3 but every test in its report passed or was skipped");
  });

  it("fails when the head report is empty, missing, or fails to load a file", async () => {
    const empty = await runSuite("head", tree("# no tests left\n"));
    expect(regressionClaim(SUBJECT, await base(), empty, [], []).reason).toMatch(/^the head report has no test cases/);
    const missing = await runSuite("head", tree(TESTS), { command: "echo ran without a report" });
    expect(regressionClaim(SUBJECT, await base(), missing, [], []).reason)
      .toMatch(/^head: no JUnit report at \$RANEX_JUNIT: the test command wrote none/);
    const broken = await runSuite("head", tree(TESTS, { "tests/test_more.py": "import nowhere\n" }));
    const evidence = regressionClaim(SUBJECT, await base(), broken, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toMatch(/test files failed to load on head: tests\/test_more\.py/);
  });

  it("fails with the timing when the head run times out, and says when setup failed", async () => {
    const hanging = await runSuite("head", tree(TESTS + "\ndef test_hang():\n    import time\n    time.sleep(30)\n"), { timeoutMs: 1500 });
    expect(regressionClaim(SUBJECT, await base(), hanging, [], []).reason).toMatch(/^the head test run timed out after 1\.\d s/);
    const setup = await runSuite("head", tree(TESTS), { setup: "echo installing; echo 'no such package: leftpad' >&2; exit 3" });
    expect(regressionClaim(SUBJECT, await base(), setup, [], []).reason)
      .toMatch(/^the head setup failed \(exit 3\):\ninstalling\nno such package: leftpad/);
  });

  it("cannot compare with a base that timed out or lost its tests to load errors", async () => {
    const head = await runSuite("head", tree(TESTS));
    const slowBase = await runSuite("base", tree(TESTS + "\ndef test_hang():\n    import time\n    time.sleep(30)\n"), { timeoutMs: 1500 });
    expect(regressionClaim(SUBJECT, slowBase, head, [], []).reason).toMatch(/^cannot compare with base: the base test run timed out/);
    const interrupted = await runSuite("base", tree(TESTS, { "tests/test_new.py": "import nowhere\n" }), {
      command: `/usr/bin/python3 -m pytest -q -p no:cacheprovider --junitxml="$RANEX_JUNIT"`,
    });
    expect(regressionClaim(SUBJECT, interrupted, head, [], []).reason)
      .toBe("cannot compare with base: the base report has no test cases; files that failed to load: tests/test_new.py");
  });

  it("does not block on a report whose ids occur more than once (node:test, same name in two files); notes them", async () => {
    const files = {
      "package.json": '{"type":"module"}',
      "test/a.test.js": 'import { test } from "node:test";\ntest("works", () => {});\n',
      "test/b.test.js": 'import { test } from "node:test";\ntest("works", () => {});\n',
    };
    const command = 'node --test --test-reporter=junit --test-reporter-destination="$RANEX_JUNIT" test/';
    const baseRun = await runSuite("base", files, { command });
    const evidence = regressionClaim(SUBJECT, baseRun, await runSuite("head", files, { command }), [], []);
    expect(evidence.outcome).toBe("pass");
    expect(evidence.details).toContainEqual({
      kind: "shared-name", message: "head: 1 test id is shared by more than one test (test::works); their copies are compared as counts of outcomes",
    });
  });

  it("a containment violation makes the evidence unsafe", async () => {
    const head = await runSuite("head", tree(TESTS));
    const violated: SuiteRun = { ...head, command: head.command === null ? null : { ...head.command, violation: "process limit hit" } };
    const evidence = regressionClaim(SUBJECT, await base(), violated, [], []);
    expect(evidence).toMatchObject({ outcome: "fail", unsafe: true, reason: "the sandbox reported a violation (head: process limit hit)" });
  });
});
