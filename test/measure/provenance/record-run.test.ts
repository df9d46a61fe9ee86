import { describe, expect, it } from "vitest";
import { provenanceFindings } from "../../../src/measure/provenance/judge.js";
import type { SuiteRun } from "../../../src/measure/report-types.js";
import { runSuite } from "../../../src/measure/run-suite.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { PROFILE } from "../../sandbox/helpers.js";
import { tempDir } from "../../helpers/git-repo.js";
import { writeTree } from "../tests/real-run.js";

// The record as the hooks write it, in real sandboxed pytest runs: the Python hook leaves at once on
// the events it does not keep and writes the ones it keeps as they happen, so a process that ends
// hard (os._exit, which skips every exit handler) still leaves what it did, and the first process's
// missing end fails the run closed.
const PYTEST = 'python3 -m pytest --junitxml="$RANEX_JUNIT" tests';
const CALC = { "src/__init__.py": "", "src/calc.py": "def add(a, b):\n    return a + b\n" };
const TESTS = { "tests/test_calc.py": "from src.calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n" };
const CONTEXT = { changed: new Set(["tests/conftest.py", "tests/peek.py"]), frozen: new Set<string>() };

async function recorded(files: Record<string, string>): Promise<SuiteRun> {
  const scratch = tempDir("ranex-record-run-");
  return runSuite(createSandbox(PROFILE), {
    label: "head", treeDir: writeTree(files), readonly: [], reportDir: `${scratch}/report`, recordDir: `${scratch}/gate`,
    setup: undefined, command: PYTEST, setupNetwork: false, timeout: 60,
  });
}

describe("the provenance record of a real run", () => {
  it("keeps every tree file that ran and the end of an honest run, and finds nothing", async () => {
    const run = await recorded({ ...CALC, ...TESTS });
    const record = run.provenance?.record;
    expect(record?.processes).toEqual([expect.objectContaining({ lang: "python", ended: true })]);
    expect(record?.code.map((c) => c.path).sort()).toEqual(["src/__init__.py", "src/calc.py", "tests/test_calc.py"]);
    expect(record?.imports).toContainEqual({ name: "src.calc", by: "tests/test_calc.py" });
    // The module table: each tree module under the name it was loaded as (the frozen tests' import statements resolve with it).
    expect(record?.modules).toEqual(expect.arrayContaining([{ name: "src", path: "src/__init__.py" }, { name: "src.calc", path: "src/calc.py" }]));
    expect(provenanceFindings(run, CONTEXT).problems).toEqual([]);
  });

  it("fails closed when the run's Python process ends hard after its report is written", async () => {
    const hard = "import os\n\ndef pytest_unconfigure(config):\n    os._exit(0)\n";
    const run = await recorded({ ...CALC, ...TESTS, "tests/conftest.py": hard });
    expect(run.command?.exitCode).toBe(0);
    expect(run.provenance?.record.processes).toEqual([expect.objectContaining({ lang: "python", ended: false })]);
    expect(provenanceFindings(run, CONTEXT).problems).toEqual([expect.stringContaining("provenance record was cut short")]);
  });

  it("names the tree's test that reaches frames through a helper after the runner's own walks up the same stack", async () => {
    // The failing tests make pytest read their tracebacks first: walks that find no tree code, whose
    // frames the hook remembers (issue 19's cost). The later test asks inspect (a helper) for its frame.
    const peek = "import inspect\n\ndef test_red():\n    assert 1 == 2\n\ndef test_red_too():\n    assert 2 == 3\n\ndef test_peek():\n    inspect.currentframe()\n";
    const run = await recorded({ ...CALC, ...TESTS, "tests/test_peek.py": peek });
    expect(run.provenance?.record.events).toContainEqual(expect.objectContaining({ event: "sys._getframe", by: "tests/test_peek.py", line: 10 }));
  });

  it("never takes a tree file for a helper by its name: a plugin of the tree called inspect.py is named", async () => {
    // Called by the runner, so no other tree frame is on the stack: taken for inspect, nobody was blamed.
    const plugin = "import sys\n\ndef pytest_sessionstart(session):\n    sys._getframe(0)\n";
    const run = await recorded({ ...CALC, ...TESTS, "conftest.py": 'pytest_plugins = ["tests.inspect"]\n', "tests/inspect.py": plugin });
    expect(run.provenance?.record.events).toContainEqual(expect.objectContaining({ event: "sys._getframe", by: "tests/inspect.py", line: 4 }));
  });

  it("keeps what a process of the tree did before it ended hard", async () => {
    // A helper process reaches into frames and leaves with os._exit: no exit handler of its runs.
    const peek = "import os, sys\nsys._getframe(0)\nos._exit(0)\n";
    const test = "import subprocess, sys\n\ndef test_peek():\n    subprocess.run([sys.executable, 'tests/peek.py'], check=True)\n";
    const run = await recorded({ ...CALC, ...TESTS, "tests/peek.py": peek, "tests/test_peek.py": test });
    expect(run.provenance?.record.processes).toHaveLength(2);
    expect(run.provenance?.record.events).toContainEqual(expect.objectContaining({ event: "sys._getframe", by: "tests/peek.py", line: 2 }));
    expect(provenanceFindings(run, CONTEXT).problems).toEqual([expect.stringContaining("tests/peek.py:2 used sys._getframe")]);
  });
});
