import { describe, expect, it } from "vitest";
import { runnersOf } from "../../src/measure/canary.js";
import { runSuite } from "../../src/measure/run-suite.js";
import type { SuiteRun } from "../../src/measure/report-types.js";
import { regressionClaim } from "../../src/measure/tests/regression.js";
import { FORGED_RESULTS } from "../../src/measure/tests/regression.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { PROFILE } from "../sandbox/helpers.js";
import { tempDir } from "../helpers/git-repo.js";
import { writeTree } from "./tests/real-run.js";

// The canary: a randomly named test that must fail, given to the run that decides regression. Real
// runs in the sandbox: an honest runner reports it failed; one that rewrites results reports it passed.
const SUBJECT = "sha256:subject";
const PYTEST = 'python3 -m pytest --junitxml="$RANEX_JUNIT" tests';
const NODE = 'node --test --test-reporter=junit --test-reporter-destination="$RANEX_JUNIT" test/';
const CALC = { "src/__init__.py": "", "src/calc.py": "def add(a, b):\n    return a + b\n" };
const PY_TESTS = { "tests/test_calc.py": "from src.calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n" };
// Stands for any code that rewrites outcomes wholesale (code under test patching the runner, say).
const FLIP = (to: string) => `import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    report = outcome.get_result()\n    if report.failed:\n        report.outcome = "${to}"\n${to === "skipped" ? '        report.longrepr = (str(item.path), 0, "Skipped: later")\n' : ""}`;

async function run(files: Record<string, string>, command: string, canary = true): Promise<SuiteRun> {
  const treeDir = writeTree(files);
  const scratch = tempDir("ranex-canary-run-");
  return runSuite(createSandbox(PROFILE), {
    label: "head", treeDir, readonly: [], reportDir: `${scratch}/report`, ...(canary ? { canaryDir: `${scratch}/canary` } : {}),
    setup: undefined, command, setupNetwork: false, timeout: 60,
  });
}

describe("runnersOf", () => {
  it.each([
    [PYTEST, ["pytest"]],
    ["pytest -q --junitxml=$RANEX_JUNIT", ["pytest"]],
    [NODE, ["node:test"]],
    ["npx vitest run --reporter=junit --outputFile=$RANEX_JUNIT", ["vitest"]],
    ["npx jest --ci --reporters=jest-junit", ["jest"]],
    ["go test ./... | go-junit-report > $RANEX_JUNIT", []],
  ])("%s -> %j", (command, runners) => {
    expect(runnersOf(command)).toEqual(runners);
  });
});

describe("the canary", () => {
  it("fails in an honest pytest run, and is never part of the report the claims read", async () => {
    const head = await run({ ...CALC, ...PY_TESTS }, PYTEST);
    expect(head.canary).toMatchObject({ runners: ["pytest"], result: "failed", othersRan: true });
    expect(head.report?.cases.map((c) => c.id)).toEqual(["tests/test_calc.py::test_add"]);
    // The runner exited 1 for the canary alone: that is no disagreement with a report of passes.
    const evidence = regressionClaim(SUBJECT, await run({ ...CALC, ...PY_TESTS }, PYTEST, false), head, [], []);
    expect(evidence.outcome, evidence.reason).toBe("pass");
  });

  it.each([["passed"], ["skipped"]])("reported %s: the run reported results that did not happen (unsafe)", async (to) => {
    const forged = await run({ ...CALC, ...PY_TESTS, "tests/conftest.py": FLIP(to) }, PYTEST);
    expect(forged.canary?.result).toBe(to);
    const evidence = regressionClaim(SUBJECT, await run({ ...CALC, ...PY_TESTS }, PYTEST, false), forged, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.unsafe).toBe(true);
    expect(evidence.reason).toContain(FORGED_RESULTS);
    expect(evidence.reason).toContain(forged.canary?.name);
  });

  it("fails once in an honest node:test run with Node's own junit reporter", async () => {
    const files = {
      "src/calc.js": "module.exports = { add: (a, b) => a + b };\n",
      "test/a.test.js": 'const test = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../src/calc.js");\ntest("adds", () => assert.equal(add(2, 3), 5));\n',
      "test/b.test.js": 'const test = require("node:test");\ntest("b runs", () => {});\n',
    };
    const head = await run(files, NODE);
    expect(head.canary).toMatchObject({ runners: ["node:test"], result: "failed" });
    expect(head.report?.cases.map((c) => c.name).sort()).toEqual(["adds", "b runs"]);
    const base = await run(files, NODE, false);
    expect(regressionClaim(SUBJECT, base, head, [], []).outcome).toBe("pass");
  });

  it("not collected, or not placeable, is a note and not a failure", async () => {
    const deselected = await run({ ...CALC, ...PY_TESTS }, 'python3 -m pytest -p no:ranex --junitxml="$RANEX_JUNIT" tests -k "not canary"');
    expect(["failed", "absent"]).toContain(deselected.canary?.result);
    // A command that sets PYTHONPATH itself still gets the canaries (a test file beside its tests),
    // but not Python's provenance hook, which rides on PYTHONPATH: a note, not a failure.
    const own = await run({ ...CALC, ...PY_TESTS }, 'PYTHONPATH=. python3 -m pytest --junitxml="$RANEX_JUNIT" tests');
    expect(own.canary).toMatchObject({ runners: ["pytest"], result: "failed" });
    const base = await run({ ...CALC, ...PY_TESTS }, PYTEST, false);
    const evidence = regressionClaim(SUBJECT, base, own, [], []);
    expect(evidence.outcome).toBe("pass");
    expect(evidence.details).toContainEqual(expect.objectContaining({ kind: "provenance", message: expect.stringContaining("PYTHONPATH") }));
    // A tree with no test_*.py file to stand beside: the canaries are not placed, and the note says why.
    const lone = await run({ ...CALC, "tests/calc_check.py": PY_TESTS["tests/test_calc.py"] }, 'python3 -m pytest --junitxml="$RANEX_JUNIT" tests/calc_check.py');
    expect(lone.canary).toMatchObject({ runners: [], result: "absent" });
    const loneEvidence = regressionClaim(SUBJECT, base, lone, [], []);
    expect(loneEvidence.details).toContainEqual(expect.objectContaining({ kind: "canary", message: expect.stringContaining("no test_*.py file") }));
  });

  // Issue 19, class 3: the module under test neuters the assertion library at import. The plain
  // raise stays red; the canaries that go through the neutered path come back passed.
  it("unittest's assertEqual neutered by the module under test: its canary passes, the run is not believed", async () => {
    const neutered = { "src/__init__.py": "", "src/calc.py": "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n\ndef add(a, b):\n    return a + b\n" };
    const head = await run({ ...neutered, ...PY_TESTS }, PYTEST);
    const members = head.canary?.members ?? [];
    expect(members.filter((m) => m.via === "unittest assertEqual" && m.expect === "fail").map((m) => m.result)).toEqual(["passed"]);
    expect(members.filter((m) => m.via === "a plain raise").map((m) => m.result)).toEqual(["failed"]);
    const evidence = regressionClaim(SUBJECT, await run({ ...CALC, ...PY_TESTS }, PYTEST, false), head, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.unsafe).toBe(true);
    expect(evidence.reason).toContain("unittest assertEqual");
  });

  it("node:assert's strict and legacy equal neutered by the module under test: their canaries pass, the run is not believed", async () => {
    const files = {
      "src/calc.js": 'const assert = require("node:assert");\nassert.strict.equal = () => {};\nassert.equal = () => {};\nmodule.exports = { add: (a, b) => a + b };\n',
      "test/a.test.js": 'const test = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../src/calc.js");\ntest("adds", () => assert.strict.equal(add(2, 3), 5));\n',
    };
    const head = await run(files, NODE);
    const passed = (head.canary?.members ?? []).filter((m) => m.result === "passed" && m.expect === "fail").map((m) => m.via).sort();
    expect(passed).toEqual(["node:assert legacy equal", "node:assert strict equal"]);
    const evidence = regressionClaim(SUBJECT, await run(files, NODE, false), head, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toContain("node:assert strict equal");
  });
});
