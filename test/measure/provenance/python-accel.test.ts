import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SuiteRun } from "../../../src/measure/report-types.js";
import { runSuite } from "../../../src/measure/run-suite.js";
import { suiteMeta } from "../../../src/measure/tests/run-facts.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { PROFILE } from "../../sandbox/helpers.js";
import { tempDir } from "../../helpers/git-repo.js";
import { writeTree } from "../tests/real-run.js";

// The Python record's C accelerator (src/measure/provenance/python-accel.ts), in real sandboxed
// pytest runs: the record sees the same with it and without it (RANEX_PY_ACCEL=0, or a build that
// failed), and code under test can neither hand the C hook a callable or lists of its own nor
// import the module by name.
const PYTEST = 'python3 -m pytest -p no:cacheprovider --junitxml="$RANEX_JUNIT" tests';
const CALC = { "src/__init__.py": "", "src/calc.py": "import statistics\n\ndef mid(xs):\n    return statistics.median(xs)\n" };

// Each test does one thing the record keeps, through one path of the accelerator: the filter's event
// list (sys._getframe), its attribute names (tb_frame), its prefix (ctypes.*), the per-test namespace
// comparison (a slot swapped during a test's call), the watched functions' places (a class member of
// unittest.case replaced).
const PROBES = `import ctypes, statistics, sys, unittest
from src.calc import mid

def test_frame():
    sys._getframe(0)

def test_traceback():
    try:
        1 / 0
    except ZeroDivisionError as e:
        e.__traceback__.tb_frame

def test_ctypes():
    ctypes.addressof(ctypes.c_int(1))

def test_swap():
    statistics.median = max
    assert mid([1, 2, 3]) == 3

def test_watched():
    unittest.case.TestCase.assertEqual = lambda *a, **k: None
`;

async function recorded(files: Record<string, string>): Promise<SuiteRun> {
  const scratch = tempDir("ranex-accel-run-");
  return runSuite(createSandbox(PROFILE), {
    label: "head", treeDir: writeTree(files), readonly: [], reportDir: `${scratch}/report`, recordDir: `${scratch}/gate`,
    setup: undefined, command: PYTEST, setupNetwork: false, timeout: 60,
  });
}

function events(run: SuiteRun): string[] {
  return (run.provenance?.record.events ?? []).map((e) => `${e.event} ${e.what} ${e.by}`).sort();
}

const EXPECTED = [
  expect.stringMatching(/^sys\._getframe sys\._getframe tests\/test_probes\.py$/),
  expect.stringMatching(/^object\.__getattr__ tb_frame tests\/test_probes\.py$/),
  expect.stringMatching(/^ctypes\.addressof ctypes\.addressof tests\/test_probes\.py$/),
  expect.stringMatching(/^between statistics\.median \(was statistics\.median, now builtins\.max\) while tests\/test_probes\.py::test_swap ran $/),
  expect.stringMatching(/^replaced unittest\.case\.TestCase\.assertEqual tests\/test_probes\.py$/),
];

// Each test sets the switches it runs with, whatever the suite was started with (RANEX_PY_ACCEL=0
// runs the other provenance tests without the accelerator; these run both ways).
const outer = { accel: process.env.RANEX_PY_ACCEL, include: process.env.RANEX_PY_ACCEL_INCLUDE };
beforeEach(() => {
  delete process.env.RANEX_PY_ACCEL;
  delete process.env.RANEX_PY_ACCEL_INCLUDE;
});
afterEach(() => {
  for (const [name, value] of [["RANEX_PY_ACCEL", outer.accel], ["RANEX_PY_ACCEL_INCLUDE", outer.include]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("the Python record's accelerator", () => {
  it("records the same with it, without it (RANEX_PY_ACCEL=0) and when its build fails (no Python.h)", async () => {
    const files = { ...CALC, "tests/test_probes.py": PROBES };
    const fast = await recorded(files);
    process.env.RANEX_PY_ACCEL = "0";
    const plain = await recorded(files);
    delete process.env.RANEX_PY_ACCEL;
    process.env.RANEX_PY_ACCEL_INCLUDE = "/nonexistent/include/python3";
    const unbuilt = await recorded(files);
    expect(fast.provenance?.record.processes).toEqual([expect.objectContaining({ lang: "python", ended: true, accel: true })]);
    // What the verdict's meta says of each run: how many Python processes ran behind the C filter.
    expect(suiteMeta(fast).provenance).toEqual(expect.objectContaining({ pythonAccelerated: 1 }));
    expect(suiteMeta(unbuilt).provenance).toEqual(expect.objectContaining({ pythonAccelerated: 0 }));
    for (const run of [plain, unbuilt]) {
      expect(run.provenance?.record.processes).toEqual([expect.objectContaining({ lang: "python", ended: true })]);
      expect(run.provenance?.record.processes[0]?.accel).toBeUndefined();
    }
    for (const run of [fast, plain, unbuilt]) {
      expect(run.report?.cases.map((c) => c.result)).toEqual(["passed", "passed", "passed", "passed", "passed"]);
      expect(events(run)).toEqual(expect.arrayContaining(EXPECTED));
    }
    expect(events(fast)).toEqual(events(plain));
    expect(events(fast)).toEqual(events(unbuilt));
  });

  it("finds the tree's code planted in every kind of slot the same with the exit walk's C filter and without it", async () => {
    // The exit walk asks the accelerator which entries of a namespace are worth its look (suspects()):
    // each kind it could leave out wrongly is planted once, at module level and on a class, and two
    // wrappers that statistics.NormalDist already holds are changed in place (no dict is written).
    // The watched functions (read in C by watch()): a module's function and a class's class method.
    // A slot of a module loaded before the tree's first file swapped (its copy taken in C by keep()).
    const plant = `import functools, statistics, string, unittest.case

def tree_fn(*args, **kwargs):
    return 0

class TreeKind:
    def method(self):
        return 0

statistics.p_function = tree_fn
statistics.p_static = staticmethod(tree_fn)
statistics.p_classmethod = classmethod(tree_fn)
statistics.p_property = property(tree_fn)
statistics.p_bound = TreeKind().method
statistics.p_partial = functools.partial(tree_fn)
statistics.p_kind = TreeKind
statistics.p_object = TreeKind()
statistics.NormalDist.p_member = tree_fn
string.Formatter.p_setter = property(None, tree_fn)
string.Formatter.p_static = staticmethod(tree_fn)
statistics.NormalDist.__dict__['mean'].__init__(tree_fn)
statistics.NormalDist.__dict__['from_samples'].__init__(tree_fn)
unittest.case.skip = tree_fn
unittest.case.TestCase.setUpClass = classmethod(tree_fn)
functools.reduce = max
`;
    const files = { ...CALC, "src/plant.py": plant, "tests/test_plant.py": "import src.plant\n\ndef test_plant():\n    assert src.plant.tree_fn() == 0\n" };
    const fast = await recorded(files);
    process.env.RANEX_PY_ACCEL = "0";
    const plain = await recorded(files);
    expect(fast.provenance?.record.processes).toEqual([expect.objectContaining({ accel: true, ended: true })]);
    const slots = ["statistics.p_function", "statistics.p_static", "statistics.p_classmethod", "statistics.p_property", "statistics.p_bound",
      "statistics.p_partial", "statistics.p_kind", "statistics.p_object", "statistics.NormalDist.p_member", "string.Formatter.p_setter",
      "string.Formatter.p_static", "statistics.NormalDist.mean", "statistics.NormalDist.from_samples"];
    for (const run of [fast, plain]) {
      expect(run.report?.cases.map((c) => c.result)).toEqual(["passed"]);
      expect(events(run)).toEqual(expect.arrayContaining(slots.map((slot) => `planted ${slot} src/plant.py`)));
      expect(events(run)).toEqual(expect.arrayContaining(["replaced unittest.case.skip src/plant.py", "replaced unittest.case.TestCase.setUpClass "]));
      expect(events(run)).toContainEqual(expect.stringMatching(/^swapped functools\.reduce \(was _?functools\.reduce, now builtins\.max\) $/));
    }
    expect(events(fast)).toEqual(events(plain));
  });

  it("refuses a second install, from the tree's code, and the record still sees what the tree does after it", async () => {
    // Attack: load the gate's own accelerator by its path (PYTHONPATH names the folder) and hand its
    // C hook a callable that ignores everything, with empty lists; then load a copy of the file (a
    // second library, statics of its own) and install there; then try to import it by name; then ask
    // the gate's blame walk about the test's own frame with a folder of its own (a walk that finds no
    // tree code, which the record's walks remember: the test's frame must not be taken for seen).
    const attack = `import _imp, gc, importlib, os, shutil, sys, tempfile

def test_reinstall():
    folder = [p for p in os.environ['PYTHONPATH'].split(':') if p.endswith('/py')][0]
    file = folder + '/ranex-accel' + _imp.extension_suffixes()[0]
    spec = type(sys.implementation)(name='_ranex_accel', origin=file)
    gate = _imp.create_dynamic(spec)
    try:
        gate.install(lambda event, args: None, frozenset(), frozenset())
        refused = False
    except RuntimeError:
        refused = True
    assert refused
    assert gate.blame(sys._getframe(0), '/nowhere/', (), ()) is None
    copy = tempfile.mkdtemp() + '/copy' + _imp.extension_suffixes()[0]
    shutil.copy(file, copy)
    own = _imp.create_dynamic(type(sys.implementation)(name='_ranex_accel', origin=copy))
    own.install(lambda event, args: None, frozenset(), frozenset(), "/nowhere/")
    assert '_ranex_accel' not in sys.modules
    for name in ('_ranex_accel', 'ranex-accel'):
        sys.path.insert(0, folder)
        try:
            importlib.import_module(name)
            imported = True
        except ImportError:
            imported = False
        finally:
            sys.path.remove(folder)
        assert not imported, name
    sys.addaudithook(lambda event, args: None)
    # The event CPython raises when the interpreter clears itself, when the C hook lets the record's go.
    sys.audit('cpython.PyInterpreterState_Clear')
    sys._getframe(0)
    gc.get_referrers()
`;
    const run = await recorded({ ...CALC, "tests/test_attack.py": attack });
    expect(run.report?.cases.map((c) => c.result)).toEqual(["passed"]);
    expect(run.provenance?.record.processes).toEqual([expect.objectContaining({ accel: true, ended: true })]);
    expect(events(run)).toContainEqual("sys._getframe sys._getframe tests/test_attack.py");
    expect(events(run)).toContainEqual("gc.get_referrers gc.get_referrers tests/test_attack.py");
  });
});
