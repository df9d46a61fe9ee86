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
import type { CanaryContext, CanaryResult } from "./types.js";

/** How the gate tells its launcher which setup file to add; the launcher deletes it at once. */
export const SETUP_ENV = { jest: "RANEX_JEST_SETUP", vitest: "RANEX_VITEST_SETUP" } as const;

export async function inFileCanaries(runner: "jest" | "vitest", ctx: CanaryContext): Promise<CanaryResult> {
  const [toBe, toEqual, toThrow, pass] = phrases(4).map(titleOf) as [string, string, string, string];
  const name = `${randomBytes(6).toString("hex")}.${runner === "jest" ? "cjs" : "mjs"}`;
  const values = { ...ctx.values, toBe, toEqual, toThrow, pass };
  await writeFile(join(ctx.hostDir, name), runner === "jest" ? jestSetup(values) : vitestSetup(values), { flag: "wx" });
  const via = (matcher: string): string => `${runner} expect().${matcher} in every test file`;
  return {
    env: { [SETUP_ENV[runner]]: `${ctx.seenAs}/${name}` },
    members: [
      { name: toBe, via: via("toBe"), expect: "fail", inEachFile: true }, { name: toEqual, via: via("toEqual"), expect: "fail", inEachFile: true },
      { name: toThrow, via: via("toThrow"), expect: "fail", inEachFile: true }, { name: pass, via: via("toBe"), expect: "pass", inEachFile: true },
    ],
  };
}

type Values = CanaryContext["values"] & Record<"toBe" | "toEqual" | "toThrow" | "pass", string>;

// The canaries themselves, the same for both runners: `expect` looked up when each runs.
function tests(register: string, v: Values): string {
  const q = JSON.stringify;
  return [
    `${register}(${q(v.toBe)}, () => { expectNow()(checksum(${q(v.word)})).toBe(${v.wrong}); });`,
    `${register}(${q(v.toEqual)}, () => { expectNow()([checksum(${q(v.word)})]).toEqual([${v.wrong}]); });`,
    `${register}(${q(v.toThrow)}, () => { expectNow()(() => checksum(${q(v.word)})).toThrow(); });`,
    `${register}(${q(v.pass)}, () => { expectNow()(checksum(${q(v.word)})).toBe(${v.right}); });`,
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
{
  const globals = require("@jest/globals");
  ${CHECKSUM}
  const expectNow = () => (typeof globalThis.expect === "function" ? globalThis.expect : globals.expect);
  const key = Object.getOwnPropertySymbols(globalThis).find((s) => s.description === "JEST_STATE_SYMBOL");
  const state = key === undefined ? undefined : globalThis[key];
  const root = state !== null && typeof state === "object" && state.rootDescribeBlock !== undefined ? state.rootDescribeBlock : undefined;
  const before = root === undefined ? 0 : root.children.length;
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

// vitest: `expect` is the global one with `globals: true`, else the module's. vitest hands a
// beforeAll the file's suite, whose tasks are moved there. A file that focuses its own tests
// (`test.only`) skips them, and the run is not believed (docs/measurement.md).
// The setup file is not TypeScript and is linted by nobody: an empty pattern is what vitest asks for.
function vitestSetup(v: Values): string {
  const q = JSON.stringify;
  return `import { beforeAll, expect as imported, test } from "vitest";

${CHECKSUM}
const expectNow = () => (typeof globalThis.expect === "function" ? globalThis.expect : imported);
const names = new Set(${q([v.toBe, v.toEqual, v.toThrow, v.pass])});
{
${tests("test", v)}
}
// vitest 4 hands the suite second (the first is the fixtures, read by their pattern); before 4, first.
beforeAll(function ({}, second) {
  const file = second ?? arguments[0];
  const mine = file.tasks.filter((task) => task.type === "test" && names.has(task.name));
  for (const task of mine) file.tasks.splice(file.tasks.indexOf(task), 1);
  file.tasks.push(...mine);
});
`;
}
