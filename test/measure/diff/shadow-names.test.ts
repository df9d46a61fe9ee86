import { describe, expect, it } from "vitest";
import { safetyClaim } from "../../../src/measure/diff/index.js";
import { moduleRoots, pathVariable, shadowedModules } from "../../../src/measure/diff/shadow-names.js";
import { added, context, policy } from "./builders.js";

// Issue 19, class 1: a new top-level module at a root of the run's module path, named like the
// standard library or an installed distribution, replaces it for every importer.

const INIT_COMMAND = 'PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest --junitxml="$RANEX_JUNIT" tests';
const srcLayout = policy({ tests: { command: INIT_COMMAND } });
const modules = { pythonStdlib: [], pythonInstalled: ["pytest", "_pytest", "pluggy", "iniconfig", "yaml"], nodeBuiltins: ["assert", "node:test", "fs/promises"], nodePackages: ["left-pad", "@scope/util"] };
const BASE = ["src/shapes/__init__.py", "src/shapes/stats.py", "tests/test_stats.py", "README.md"];

const shadows = (paths: string[], over: Parameters<typeof context>[1] = {}) =>
  shadowedModules(context(paths.map((p) => added(p)), { policy: srcLayout, basePaths: BASE, modules, ...over })).map((s) => s.message);

describe("module roots", () => {
  it("reads PYTHONPATH and NODE_PATH as tests.command sets them, quoted or not, expansions dropped", () => {
    expect(pathVariable(INIT_COMMAND, "PYTHONPATH")).toEqual(["src"]);
    expect(pathVariable("PYTHONPATH=src:lib:/opt/x:../up pytest", "PYTHONPATH")).toEqual(["src", "lib"]);
    expect(pathVariable("export NODE_PATH='./lib' && node --test", "NODE_PATH")).toEqual(["lib"]);
    expect(pathVariable("pytest", "PYTHONPATH")).toEqual([]);
  });

  it("holds the repository root, PYTHONPATH, the tests' import folders and NODE_PATH", () => {
    const roots = moduleRoots({ policy: policy({ tests: { command: `NODE_PATH=lib ${INIT_COMMAND}` } }), basePaths: [...BASE, "pkg/tests/__init__.py", "pkg/tests/test_x.py"] });
    expect(roots.map((r) => `${r.language}:${r.dir}`)).toEqual(["python:", "python:src", "python:tests", "python:pkg", "node:lib"]);
  });
});

describe("shadowing by name", () => {
  it("fails the standard library shadowed from src under PYTHONPATH=src: a module, a package, bytecode", () => {
    expect(shadows(["src/statistics.py", "src/xml/etree/ElementTree.py", "src/json/__init__.pyc"])).toEqual([
      "new top-level Python module statistics at src (on PYTHONPATH) would shadow the standard library's statistics",
      "new top-level Python module xml at src (on PYTHONPATH) would shadow the standard library's xml",
      "new top-level Python module json at src (on PYTHONPATH) would shadow the standard library's json",
    ]);
  });

  it("fails installed distributions' import names, at the repository root and where pytest imports tests from", () => {
    expect(shadows(["iniconfig.py", "tests/yaml/__init__.py", "src/_pytest/x.py"])).toEqual([
      "new top-level Python module iniconfig at the repository root (the working folder) would shadow the installed distributions' iniconfig",
      "new top-level Python module yaml at tests (where pytest imports the tests from) would shadow the installed distributions' yaml",
      "new top-level Python module _pytest at src (on PYTHONPATH) would shadow the installed distributions' _pytest",
    ]);
  });

  it("fails Node built-ins and installed packages under NODE_PATH", () => {
    const node = policy({ tests: { command: "NODE_PATH=lib node --test" } });
    expect(shadows(["lib/assert.js", "lib/fs/index.js", "lib/left-pad/package.json", "lib/@scope/util/index.js", "lib/mine.js"], { policy: node })).toEqual([
      "new top-level Node module assert at lib (on NODE_PATH) would shadow Node's built-in assert",
      "new top-level Node module fs at lib (on NODE_PATH) would shadow Node's built-in fs",
      "new top-level Node module left-pad at lib (on NODE_PATH) would shadow the installed package left-pad",
      "new top-level Node module @scope/util at lib (on NODE_PATH) would shadow the installed package @scope/util",
    ]);
  });

  it("spares the repository's own names, modules below the top, files that are not code, and roots not on the path", () => {
    const own = shadows(["src/shapes/statistics.py", "src/shapes/xml/x.py", "site/index.html", "src/json/data.json", "lib/statistics.py"], {
      basePaths: [...BASE, "src/queue.py"],
    });
    expect(own).toEqual([]);
    expect(shadows(["src/queue_extra.py", "src/mine.py"], { basePaths: [...BASE, "src/queue.py"] })).toEqual([]);
    // Without PYTHONPATH=src, src/ is not a root (a plain `pytest` run imports src.statistics, not statistics).
    expect(shadows(["src/statistics.py"], { policy: policy({ tests: { command: "python3 -m pytest tests" } }) })).toEqual([]);
  });

  it("reads the roots pytest's pythonpath setting adds", () => {
    const plain = policy({ tests: { command: "python3 -m pytest tests" } });
    expect(shadows(["lib/statistics.py"], { policy: plain, modules: { ...modules, pytestPythonPath: ["lib"] } })).toEqual([
      "new top-level Python module statistics at lib (on pytest's pythonpath) would shadow the standard library's statistics",
    ]);
  });

  it("names the standard library even without a python to ask (the committed list)", () => {
    expect(shadows(["src/statistics.py"], { modules: undefined })).toHaveLength(1);
  });

  it("is a diff.safety finding", () => {
    const evidence = safetyClaim(context([added("src/statistics.py")], { policy: srcLayout, basePaths: BASE, modules }));
    expect(evidence.outcome).toBe("fail");
    expect(evidence.details).toEqual([{ path: "src/statistics.py", kind: "shadow", message: "src/statistics.py: new top-level Python module statistics at src (on PYTHONPATH) would shadow the standard library's statistics" }]);
  });
});
