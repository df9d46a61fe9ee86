// mocha's registration watch (issue 19; ./registration-guard.ts for the rule). mocha runs every test
// file in one process and sets its globals (`it`, `describe`) again before each file, so code under
// test reaches a frozen file's tests through the globals it replaces while that file loads, or through
// a test's `fn` once registered. The gate's launcher (reporters/mocha-run.cjs) installs this module
// before mocha's CLI loads anything of the tree: every test added to a suite has its registration stack
// read and its body kept. A frozen file's test registered through a file the PR can change, or whose
// body changed before it runs, is run with a body that fails saying so (so it is never a pass), and
// the family's registration canary, which runs after every file loaded, fails naming them.
import { guardScript, FS_CJS, type GuardFacts } from "./registration-guard.js";

/** The module the launcher requires (`install(cli)`) and the canary file imports (`check()`). */
export function mochaGuard(tree: GuardFacts): string {
  return `"use strict";
const { dirname, join } = require("node:path");
${guardScript(tree, FS_CJS)}
const findings = [];
const bodies = new WeakMap();
const voided = new WeakSet();
const voidTest = (test, why) => {
  if (findings.length < 20) findings.push(why);
  voided.add(test);
  test.fn = function () { throw new Error(why + " (code the PR can change took part in registering a frozen test)"); };
  test.async = 0;
  test.sync = true;
};
// The preload's check of what tests rely on (src/measure/provenance/node-planted.ts), taken now, before
// any code of the tree: run as each test ends, so a swap put back before the process ends is still seen.
const lookReplaced = process[Symbol.for("ranex.lookReplaced")];
const looked = (fn) => function (...args) {
  try { if (typeof lookReplaced === "function") lookReplaced(); } catch {}
  return fn.apply(this, args);
};
exports.install = (cli) => {
  const lib = join(dirname(cli), "..");
  const Suite = require(join(lib, "suite.js"));
  const Runnable = require(join(lib, "runnable.js"));
  const addTest = Suite.prototype.addTest;
  Suite.prototype.addTest = function (test) {
    bodies.set(test, test.fn);
    const files = guard.via();
    const added = addTest.call(this, test);
    const rel = guard.frozenRel(test.file);
    if (rel !== null && files.length > 0) voidTest(test, rel + ": " + JSON.stringify(test.fullTitle()) + " was registered through " + files.join(", "));
    return added;
  };
  const run = Runnable.prototype.run;
  Runnable.prototype.run = function (fn) {
    if (this.type === "test" && !voided.has(this) && bodies.has(this) && bodies.get(this) !== this.fn) {
      const rel = guard.frozenRel(this.file);
      if (rel !== null) voidTest(this, rel + ": " + JSON.stringify(this.fullTitle()) + ": its body was replaced after it was registered");
    }
    return run.call(this, this.type === "test" && typeof fn === "function" ? looked(fn) : fn);
  };
};
exports.check = () => (findings.length === 0 ? null : findings.join("; "));
`;
}
