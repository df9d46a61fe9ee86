// jest's and vitest's canary family inside every test file (issue 19). Both give each test file an
// `expect` (and jest a module registry) of its own, so a canary in a file of its own never meets what
// a test file, or the code it imports, does to `expect` in that file. This one is a setup file the
// gate's launcher adds after the repository's own (reporters/jest-run.cjs: jest's setupFilesAfterEnv;
// reporters/vitest-run.cjs: vitest's setupFiles): the runner loads it into every test file before the
// file itself. It registers tests failing through `expect().toBe`, `.toEqual` and `.toThrow` and one
// passing through `.toBe`, and, once the file's tests are collected (a beforeAll of its own, the first
// to run), moves them behind the file's own tests: so they run after the file's top-level code, its
// imports, its hooks and its tests, and meet `expect` as the file's last test does. The launcher
// learns the file from an environment variable that it removes before the runner starts, so the
// tests never see it.
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { phrases, titleOf } from "../measure/canary-names.js";
import { INTRINSICS_CANARY_BODY, INTRINSICS_IN_FILE } from "./intrinsics-in-file.js";
import { LYING_RECEIVED } from "./lying-received.js";
import { testBodiesScript } from "./test-bodies.js";
import { guardCanaryBody, guardScript, FS_CJS, fsEsm, type GuardFacts } from "./registration-guard.js";
import type { CanaryContext, CanaryResult } from "./types.js";

/** How the gate tells its launcher which setup file to add; the launcher deletes it at once. */
export const SETUP_ENV = { jest: "RANEX_JEST_SETUP", vitest: "RANEX_VITEST_SETUP" } as const;

export async function inFileCanaries(runner: "jest" | "vitest", ctx: CanaryContext): Promise<CanaryResult> {
  const [toBe, toEqual, toThrow, pass, registered, intrinsics] = phrases(6).map(titleOf) as [string, string, string, string, string, string];
  const name = `${randomBytes(6).toString("hex")}.${runner === "jest" ? "cjs" : "mjs"}`;
  const tree: GuardFacts = { ...ctx.tree ?? { treeRoot: ctx.treeDir, frozen: [] }, gate: ctx.seenAs };
  // The provenance record's pipe (src/measure/provenance/place.ts): where the bodies that threw are told.
  const values = { ...ctx.values, toBe, toEqual, toThrow, pass, registered, intrinsics, tree, fifo: `${ctx.seenAs}/record` };
  await writeFile(join(ctx.hostDir, name), runner === "jest" ? jestSetup(values) : vitestSetup(values), { flag: "wx" });
  const via = (matcher: string): string => `${runner} expect().${matcher} in every test file`;
  return {
    env: { [SETUP_ENV[runner]]: `${ctx.seenAs}/${name}` },
    members: [
      { name: toBe, via: via("toBe"), expect: "fail", inEachFile: true }, { name: toEqual, via: via("toEqual"), expect: "fail", inEachFile: true },
      { name: toThrow, via: via("toThrow"), expect: "fail", inEachFile: true }, { name: pass, via: via("toBe"), expect: "pass", inEachFile: true },
      { name: registered, via: `${runner}'s test registration in every frozen test file, and the values every test file compares`, expect: "pass", inEachFile: true },
      // A replacement the base's run makes too (a polyfill, a spy left in place) is the owner's (./intrinsics-in-file.ts).
      { name: intrinsics, via: `the intrinsics (Object.is, Array.prototype, JSON, ...) in every ${runner} test file's context`, expect: "pass", inEachFile: true, againstBase: true },
    ],
  };
}

type Values = CanaryContext["values"] & Record<"toBe" | "toEqual" | "toThrow" | "pass" | "registered" | "intrinsics" | "fifo", string> & { tree: GuardFacts };

// The canaries themselves, the same for both runners: `expect` looked up when each runs.
function tests(register: string, v: Values): string {
  const q = JSON.stringify;
  return [
    `${register}(${q(v.toBe)}, () => { expectNow()(checksum(${q(v.word)})).toBe(${v.wrong}); });`,
    `${register}(${q(v.toEqual)}, () => { expectNow()([checksum(${q(v.word)})]).toEqual([${v.wrong}]); });`,
    `${register}(${q(v.toThrow)}, () => { expectNow()(() => checksum(${q(v.word)})).toThrow(); });`,
    `${register}(${q(v.pass)}, () => { expectNow()(checksum(${q(v.word)})).toBe(${v.right}); });`,
    `${register}(${q(v.registered)}, ${guardCanaryBody("testPath")});`,
    `${register}(${q(v.intrinsics)}, ${INTRINSICS_CANARY_BODY});`,
  ].map((line) => `  ${line}`).join("\n");
}

const CHECKSUM = "const checksum = (text) => [...text].reduce((sum, ch, i) => sum + (i + 1) * ch.charCodeAt(0), 0) % 1009;";

// jest: `expect` is the global one (what a test file's free `expect` is), or @jest/globals' when the
// configuration injects no globals. jest-circus keeps its state under a symbol of the file's global;
// found there, the canaries are moved behind the file's own tests, and run even when the file focuses
// its own (`test.only`). Without it (another test runner) they run first, still after the file and
// what it imports were loaded.
function jestSetup(v: Values): string {
  return `"use strict";
${WATCH_CIRCUS}
{
  const globals = require("@jest/globals");
  ${CHECKSUM}
  const expectNow = () => (typeof globalThis.expect === "function" ? globalThis.expect : globals.expect);
  const key = Object.getOwnPropertySymbols(globalThis).find((s) => s.description === "JEST_STATE_SYMBOL");
  const state = key === undefined ? undefined : globalThis[key];
  const root = state !== null && typeof state === "object" && state.rootDescribeBlock !== undefined ? state.rootDescribeBlock : undefined;
  const before = root === undefined ? 0 : root.children.length;
  const testPath = globals.expect.getState().testPath;
  ${INTRINSICS_IN_FILE}
  globals.afterEach(() => intrinsicsWatch.look());
  ${testBodiesScript(v.fifo, FS_CJS)}
  ${guardScript(v.tree, FS_CJS)}
  // expect too: a wrapper that answers for the code's own wrong value only leaves the canaries honest.
  guard.watchGlobals(["test", "it", "describe", "fit", "fdescribe", "xit", "xtest", "xdescribe", "expect"]);
  ${LYING_RECEIVED}
  lyingReceived.jest(globalThis[Symbol.for("$$jest-matchers-object")]);
  // The matchers themselves: code under test that redefines a built-in one (\`expect.extend({ toEqual })\`,
  // its name built at run time, which the harness scan cannot read) judges every frozen assertion.
  // Watched like the registration globals, by who writes them (the owner's setup files ran before).
  const matchers = globalThis[Symbol.for("$$jest-matchers-object")]?.matchers;
  if (matchers !== null && typeof matchers === "object") guard.watchGlobals(Object.keys(matchers), matchers, "jest's matchers");
  // jest 30 keeps the handlers under a symbol of the global, jest 29 in the state.
  const handlers = root === undefined ? undefined : Array.isArray(state.eventHandlers) ? state.eventHandlers : globalThis[Symbol.for("EVENT_HANDLERS")];
  const handler = Array.isArray(handlers) ? watchCircus(handlers, root, guard, (test, threw) => (threw ? testBodies.threw : testBodies.ok)(testPath, fullName(test), test, test.invocations)) : undefined;
  if (handler !== undefined) guard.onCheck(() => handlers.includes(handler) ? null : "the gate's handler was taken out of jest-circus's handlers");
${tests("globals.test", v)}
  if (root !== undefined) {
    const mine = root.children.slice(before);
    globals.beforeAll(() => {
      for (const test of mine) {
        const at = root.children.indexOf(test);
        if (at !== -1) root.children.splice(at, 1);
        if (state.hasFocusedTests === true && test.mode === undefined) test.mode = "only";
      }
      root.children.push(...mine);
    });
  }
}
`;
}

// jest-circus tells its event handlers of every test added and every test body about to run:
// the test's registration stack is read when it is added (the handler runs inside the `test` call),
// and its body then is compared with the one it runs with. Tests that were there before the handler
// (the configuration's own setup files) are taken as they are. A test jest-circus runs concurrently is
// not compared (its body is the runner's to wrap). Hooks are not held to it: code under test that adds
// one (a fake server's setup) is common, and a hook that swaps a body is seen when the test starts.
const WATCH_CIRCUS = `function fullName(test) {
  const names = [];
  for (let at = test; at !== undefined && at.parent !== undefined; at = at.parent) names.unshift(at.name);
  return names.join(" ");
}
function watchCircus(handlers, root, guard, told) {
  const registered = new WeakMap();
  const walk = (block) => { for (const child of block.children) child.type === "test" ? registered.set(child, child.fn) : walk(child); };
  walk(root);
  const nameOf = (test) => JSON.stringify(fullName(test));
  const handler = (event, now) => {
    if (event.name === "add_test") {
      const block = now.currentDescribeBlock;
      const test = block.children[block.children.length - 1];
      if (test === undefined || test.type !== "test" || test.fn !== event.fn || registered.has(test)) return;
      registered.set(test, test.fn);
      const files = guard.via();
      if (files.length > 0) guard.note(nameOf(test) + " was registered through " + files.join(", "));
    } else if ((event.name === "test_fn_failure" || event.name === "test_fn_success") && event.test.failing !== true) {
      // Told as the body ends, before any hook of the test runs (./test-bodies.ts).
      told(event.test, event.name === "test_fn_failure");
    } else if (event.name === "test_fn_start" && event.test.concurrent !== true) {
      if (!registered.has(event.test)) guard.note(nameOf(event.test) + " was put into jest-circus's state without being registered");
      else if (registered.get(event.test) !== event.test.fn) guard.note(nameOf(event.test) + ": its body was replaced after it was registered");
    }
  };
  handlers.push(handler);
  return handler;
}`;

// vitest: `expect` is the global one with `globals: true`, else the module's. vitest tells nobody of a
// test being added, so its registration is watched where code under test can reach it: the globals
// (`globals: true`), the chained forms of the module's functions, and each test's body between
// collection and its start. vitest hands a beforeAll the file's suite, whose tasks are moved there. A file that focuses its own tests
// (`test.only`) skips them, and the run is not believed (docs/measurement.md).
// The setup file is not TypeScript and is linted by nobody: an empty pattern is what vitest asks for.
function vitestSetup(v: Values): string {
  const q = JSON.stringify;
  return `import * as vitest from "vitest";
import * as fsForGuard from "node:fs";

const { afterEach, beforeAll, beforeEach, describe, expect: imported, it, suite, test } = vitest;
// A test's body: vitest/suite's getFn before vitest 5, TestRunner.getTestFn from 5 (which has no vitest/suite).
// Named by a variable: vite would resolve a literal even where it is never imported.
const suiteModule = "vitest/suite";
// Its setter likewise: vitest/suite's setFn where there is one (4.1's TestRunner.setTestFn is its getFn).
const suiteApi = await import(/* @vite-ignore */ suiteModule).catch(() => null);
const getFn = typeof vitest.TestRunner?.getTestFn === "function" ? vitest.TestRunner.getTestFn : suiteApi.getFn;
const setFn = typeof suiteApi?.setFn === "function" ? suiteApi.setFn
  : vitest.TestRunner?.setTestFn !== vitest.TestRunner?.getTestFn ? vitest.TestRunner?.setTestFn : undefined;

${CHECKSUM}
const expectNow = () => (typeof globalThis.expect === "function" ? globalThis.expect : imported);
const names = new Set(${q([v.toBe, v.toEqual, v.toThrow, v.pass, v.registered, v.intrinsics])});
const testPath = imported.getState().testPath;
${INTRINSICS_IN_FILE}
afterEach(() => intrinsicsWatch.look());
${testBodiesScript(v.fifo, fsEsm("fsForGuard"))}
${guardScript(v.tree, fsEsm("fsForGuard"))}
guard.watchGlobals(["test", "it", "describe", "suite", "expect"]);
${LYING_RECEIVED}
lyingReceived.chai(vitest.chai);
// The matchers themselves (chai's Assertion methods, where \`expect.extend\` puts them too), as jest's above.
const assertion = vitest.chai?.Assertion?.prototype;
if (assertion !== undefined && assertion !== null) guard.watchGlobals(Object.getOwnPropertyNames(assertion), assertion, "vitest's matchers");
// The module's registration functions cannot be reassigned, but their chained forms can (\`test.each\`).
const shapeOf = (fn) => new Map(Object.getOwnPropertyNames(fn).map((key) => [key, Object.getOwnPropertyDescriptor(fn, key)]));
const shapes = [["test", test], ["it", it], ["describe", describe], ["suite", suite]].map(([name, fn]) => [name, fn, shapeOf(fn)]);
const changed = (a, b) => a === undefined || b === undefined || a.value !== b.value || a.get !== b.get || a.set !== b.set;
{
${tests("test", v)}
}
// Each test's body as collected, compared when it starts (the gate's beforeEach is the file's first).
const bodies = new WeakMap();
const collected = (suite) => { for (const task of suite.tasks) task.type === "test" ? bodies.set(task, getFn(task)) : task.tasks !== undefined && collected(task); };
// The name the report gives a test after its file: its suites' names and its own, joined by " > ".
const fullName = (task) => { const names = []; for (let at = task; at !== undefined && at !== null && at !== task.file; at = at.suite) names.unshift(at.name); return names.join(" > "); };
// Each body is told to the record's pipe as it ends (./test-bodies.ts): wrapped here, once, before it runs.
const toldOf = new WeakSet();
beforeEach(({ task }) => {
  if (!bodies.has(task)) guard.note(JSON.stringify(task.name) + " was added after the file's tests were collected");
  else if (bodies.get(task) !== getFn(task)) guard.note(JSON.stringify(task.name) + ": its body was replaced after it was registered");
  if (typeof setFn !== "function" || toldOf.has(task)) return;
  toldOf.add(task);
  const body = getFn(task);
  const name = fullName(task);
  let attempt = 0;
  const told = async function (...args) {
    attempt += 1;
    const now = attempt;
    try {
      const value = await body.apply(this, args);
      testBodies.ok(testPath, name, task, now);
      return value;
    } catch (error) {
      if (task.fails !== true) testBodies.threw(testPath, name, task, now);
      throw error;
    }
  };
  setFn(task, told);
  bodies.set(task, told);
});
// vitest 4 hands the suite second (the first is the fixtures, read by their pattern); before 4, first.
beforeAll(function ({}, second) {
  const file = second ?? arguments[0];
  for (const [name, fn, shape] of shapes) {
    const now = shapeOf(fn);
    for (const key of new Set([...shape.keys(), ...now.keys()])) if (changed(shape.get(key), now.get(key))) guard.note("vitest's " + name + "." + key + " was replaced while the file loaded", "globals");
  }
  collected(file);
  const mine = file.tasks.filter((task) => task.type === "test" && names.has(task.name));
  for (const task of mine) file.tasks.splice(file.tasks.indexOf(task), 1);
  file.tasks.push(...mine);
});
`;
}
