import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { runInThisContext } from "node:vm";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { guardScript, FS_CJS, type GuardFacts } from "../../src/runners/registration-guard.js";
import { tempDir } from "../helpers/git-repo.js";

// The registration watch's rule (issue 19), run as the setup files run it: which files of a stack are
// code the PR can change. Real files, required by Node, so the stack's file names are real.
interface Guard {
  via(): string[];
  watchGlobals(names: string[], target?: object, label?: string, onWrite?: () => void): void;
  check(testPath: string): string | null;
}

const call = "exports.call = (fn) => fn();\n";

// A pause the kernel's clock sees: file change times are read from a coarse clock (a few ms behind).
const pause = (ms: number): void => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); };

function setUp(changed?: readonly string[]): { guard: Guard; load: (rel: string, named?: boolean) => { call: (fn: () => unknown) => unknown }; root: string; gate: string } {
  const root = realpathSync(tempDir("ranex-guard-tree-"));
  const gate = realpathSync(tempDir("ranex-guard-gate-"));
  const files: Record<string, string> = {
    "test/a.test.js": call, "test/helpers/cases.js": call, "src/wrap.js": call,
    "src/compiled.js": "exports.call = new Function(\"fn\", \"return fn();\");\n",
    "node_modules/lib/index.js": call, "node_modules/added/index.js": call,
    "src/testing/suite.js": call, "packages/kit/lib/suite.js": call,
    "src/evals.js": "exports.call = (fn) => eval(\"fn()\");\n",
    "src/vm.js": "exports.call = require(\"node:vm\").runInThisContext(\"(fn) => fn()\");\n",
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  writeFileSync(join(gate, "setup.js"), call);
  // This file and vitest stand in for the runner here, so their frames are the gate's: the guard takes
  // $RANEX_REPORTERS as the gate's folder too, and this checkout may itself lie under /tmp (a clean
  // clone in CI), which the rule counts as a place the run wrote.
  const reporters = process.env.RANEX_REPORTERS;
  process.env.RANEX_REPORTERS = join(import.meta.dirname, "..", "..");
  // The gate's stamp comes after the tree was laid out, as in a run.
  pause(30);
  const facts: GuardFacts = { treeRoot: root, frozen: ["test/a.test.js", "test/helpers"], gate, ...(changed === undefined ? {} : { changed: { paths: changed, since: Date.now() } }) };
  pause(30);
  const guard = new Function("require", `${guardScript(facts, FS_CJS)}\nreturn guard;`)(createRequire(import.meta.filename)) as Guard;
  if (reporters === undefined) delete process.env.RANEX_REPORTERS;
  else process.env.RANEX_REPORTERS = reporters;
  // Workspace packages linked under node_modules, as npm lays them out.
  symlinkSync("../packages/kit", join(root, "node_modules", "kit"));
  symlinkSync("../src/testing", join(root, "node_modules", "tools"));
  const require = createRequire(join(root, "index.js"));
  // Loaded under the path as named, links kept (what --preserve-symlinks does): compiled under that name.
  const asNamed = (rel: string): { call: (fn: () => unknown) => unknown } => {
    const module = { exports: {} as { call: (fn: () => unknown) => unknown } };
    (runInThisContext(`(function (exports, module) {${readFileSync(join(root, rel), "utf8")}\n})`, { filename: join(root, rel) }) as (e: object, m: object) => void)(module.exports, module);
    return module.exports;
  };
  return { guard, load: (rel, named = false) => (named ? asNamed(rel) : require(join(root, rel)) as { call: (fn: () => unknown) => unknown }), root, gate };
}

describe("the registration watch's stack rule", () => {
  it("names the files of the tree the run can write, and nothing frozen, installed or the gate's", () => {
    const { guard, load, gate } = setUp();
    const gateFile = createRequire(join(gate, "x.js"))(join(gate, "setup.js")) as { call: (fn: () => unknown) => unknown };
    expect(load("test/a.test.js").call(() => guard.via())).toEqual([]);
    expect(load("test/helpers/cases.js").call(() => guard.via())).toEqual([]);
    expect(load("node_modules/lib/index.js").call(() => guard.via())).toEqual([]);
    expect(gateFile.call(() => guard.via())).toEqual([]);
    expect(load("test/a.test.js").call(() => load("src/wrap.js").call(() => guard.via()))).toEqual(["src/wrap.js"]);
    // Code compiled at run time is named by the file that compiled it.
    expect(load("src/compiled.js").call(() => guard.via())).toEqual(["src/compiled.js"]);
  });

  it("names a module the run wrote outside the tree, in /tmp", () => {
    const { guard } = setUp();
    const elsewhere = realpathSync(tempDir("ranex-guard-scratch-"));
    writeFileSync(join(elsewhere, "w.js"), call);
    const scratch = createRequire(join(elsewhere, "x.js"))(join(elsewhere, "w.js")) as { call: (fn: () => unknown) => unknown };
    expect(scratch.call(() => guard.via())).toEqual([join(elsewhere, "w.js")]);
  });

  it("counts a stack it cannot read as changeable code", () => {
    const { guard } = setUp();
    const before = Object.getOwnPropertyDescriptor(Error, "prepareStackTrace");
    Object.defineProperty(Error, "prepareStackTrace", { configurable: true, get: () => undefined, set: () => undefined });
    try {
      expect(guard.via()).toEqual(["(a stack the gate could not read)"]);
    } finally {
      if (before === undefined) delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
      else Object.defineProperty(Error, "prepareStackTrace", before);
    }
  });

  it("notes a registration function replaced by changeable code, and says so for frozen files only", () => {
    const { guard, load, root } = setUp();
    const exportsOf = { test: (): void => undefined, it: (): void => undefined };
    let told = 0;
    guard.watchGlobals(["test", "it"], exportsOf, "node:test's exports", () => { told += 1; });
    load("test/a.test.js").call(() => { exportsOf.it = (): void => undefined; });
    expect(told).toBe(0);
    load("src/wrap.js").call(() => { exportsOf.test = (): void => undefined; });
    expect(told).toBe(1);
    expect(guard.check(join(root, "src", "new.test.js"))).toBeNull();
    expect(guard.check(join(root, "test", "a.test.js"))).toBe("test/a.test.js: node:test's exports.test was replaced by src/wrap.js");
  });
});

// In a judgment (issue 19's better rule): only the files the pull request changed or added, the files
// the run wrote, and what they compiled are the PR's; every other file of the tree is the owner's.
describe("the registration watch's stack rule, given what the pull request changed", () => {
  const changed = ["src/wrap.js", "src/compiled.js", "src/evals.js", "packages/kit", "node_modules/added/index.js"];

  it("holds an unchanged helper of the tree to be the owner's, and a changed or added one the PR's", () => {
    const { guard, load } = setUp(changed);
    const test = load("test/a.test.js");
    expect(test.call(() => load("src/testing/suite.js").call(() => guard.via()))).toEqual([]);
    expect(test.call(() => load("node_modules/lib/index.js").call(() => guard.via()))).toEqual([]);
    expect(test.call(() => load("src/wrap.js").call(() => guard.via()))).toEqual(["src/wrap.js"]);
    // A changed folder (a submodule's link) stands for the files under it.
    expect(test.call(() => load("packages/kit/lib/suite.js").call(() => guard.via()))).toEqual(["packages/kit/lib/suite.js"]);
    // A link (a workspace package under --preserve-symlinks) is judged as the file it reaches.
    expect(test.call(() => load("node_modules/kit/lib/suite.js", true).call(() => guard.via()))).toEqual(["packages/kit/lib/suite.js"]);
    expect(test.call(() => load("node_modules/tools/suite.js", true).call(() => guard.via()))).toEqual([]);
    // A package file the PR committed is the PR's, however it is named.
    expect(test.call(() => load("node_modules/added/index.js").call(() => guard.via()))).toEqual(["node_modules/added/index.js"]);
  });

  it("on the base (nothing changed) holds no file of the tree to be the PR's, but still a module written to /tmp", () => {
    const { guard, load } = setUp([]);
    expect(load("test/a.test.js").call(() => load("src/wrap.js").call(() => guard.via()))).toEqual([]);
    const elsewhere = realpathSync(tempDir("ranex-guard-scratch-"));
    writeFileSync(join(elsewhere, "w.js"), call);
    const scratch = createRequire(join(elsewhere, "x.js"))(join(elsewhere, "w.js")) as { call: (fn: () => unknown) => unknown };
    expect(scratch.call(() => guard.via())).toEqual([join(elsewhere, "w.js")]);
  });

  it("holds a file of the tree written after the gate's stamp to be the run's, whatever the diff says", () => {
    const { guard, load, root } = setUp([]);
    writeFileSync(join(root, "src", "late.js"), call);
    writeFileSync(join(root, "src", "testing", "suite.js"), `${call}// rewritten by the run\n`);
    expect(load("src/late.js").call(() => guard.via())).toEqual(["src/late.js (written during the run)"]);
    expect(load("src/testing/suite.js").call(() => guard.via())).toEqual(["src/testing/suite.js (written during the run)"]);
  });

  it("judges code compiled at run time by the file that compiled it, and a nameless script as the PR's", () => {
    const { guard, load } = setUp(changed);
    // new Function and eval in changed files: named by them.
    expect(load("src/compiled.js").call(() => guard.via())).toEqual(["src/compiled.js"]);
    expect(load("src/evals.js").call(() => guard.via())).toEqual(["src/evals.js"]);
    // A vm script without a file name has no compiling file the stack can name: fail closed.
    expect(load("src/vm.js").call(() => guard.via())).toEqual(["(code compiled at run time)"]);
  });

  it("still notes a registration function replaced by a changed file, and not by an unchanged one", () => {
    const { guard, load, root } = setUp(changed);
    const exportsOf = { test: (): void => undefined, it: (): void => undefined };
    guard.watchGlobals(["test", "it"], exportsOf, "node:test's exports");
    load("src/testing/suite.js").call(() => { exportsOf.it = (): void => undefined; });
    expect(guard.check(join(root, "test", "a.test.js"))).toBeNull();
    load("src/wrap.js").call(() => { exportsOf.test = (): void => undefined; });
    expect(guard.check(join(root, "test", "a.test.js"))).toBe("test/a.test.js: node:test's exports.test was replaced by src/wrap.js");
  });
});
