// jest's canary family inside every test file (issue 19). jest gives each test file an `expect` and a
// module registry of its own, so a canary in a file of its own never meets what a test file, or the
// code it imports, does to `expect` in that file. This one is a setup file the gate's launcher
// (reporters/jest-run.cjs) adds to jest's setupFilesAfterEnv, after the repository's own: jest loads it
// into every test file before the file itself. It registers tests failing through `expect().toBe`,
// `.toEqual` and `.toThrow` and one passing through `.toBe`, and, once the file's tests are collected
// (a beforeAll of its own, the first to run), moves them behind the file's own tests: so they run
// after the file's top-level code, its imports, its hooks and its tests, and meet `expect` as the
// file's last test does. The launcher learns the file from an environment variable that it removes
// before jest starts, so the tests never see it.
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { phrases, titleOf } from "../measure/canary-names.js";
import type { CanaryContext, CanaryResult } from "./types.js";

/** How the gate tells its jest launcher which setup file to add; the launcher deletes it at once. */
export const JEST_SETUP_ENV = "RANEX_JEST_SETUP";

export async function jestFileCanaries(ctx: CanaryContext): Promise<CanaryResult> {
  const [toBe, toEqual, toThrow, pass] = phrases(4).map(titleOf) as [string, string, string, string];
  const name = `${randomBytes(6).toString("hex")}.cjs`;
  await writeFile(join(ctx.hostDir, name), setupFile({ ...ctx.values, toBe, toEqual, toThrow, pass }), { flag: "wx" });
  return {
    env: { [JEST_SETUP_ENV]: `${ctx.seenAs}/${name}` },
    members: [
      { name: toBe, via: "jest expect().toBe in every test file", expect: "fail", inEachFile: true },
      { name: toEqual, via: "jest expect().toEqual in every test file", expect: "fail", inEachFile: true },
      { name: toThrow, via: "jest expect().toThrow in every test file", expect: "fail", inEachFile: true },
      { name: pass, via: "jest expect().toBe in every test file", expect: "pass", inEachFile: true },
    ],
  };
}

type Values = CanaryContext["values"];

// `expect` is looked up when each canary runs, as the file's own tests meet it: the global one (what a
// test file's free `expect` is), or @jest/globals' when the configuration injects no globals. jest-circus
// keeps its state under a symbol of the file's global; found there, the canaries are moved behind the
// file's own tests, and run even when the file focuses its own (`test.only`). Without it (another test
// runner) they run first, still after the file and what it imports were loaded.
function setupFile(v: Values & Record<"toBe" | "toEqual" | "toThrow" | "pass", string>): string {
  const q = JSON.stringify;
  return `"use strict";
{
  const globals = require("@jest/globals");
  const checksum = (text) => [...text].reduce((sum, ch, i) => sum + (i + 1) * ch.charCodeAt(0), 0) % 1009;
  const expectNow = () => (typeof globalThis.expect === "function" ? globalThis.expect : globals.expect);
  const key = Object.getOwnPropertySymbols(globalThis).find((s) => s.description === "JEST_STATE_SYMBOL");
  const state = key === undefined ? undefined : globalThis[key];
  const root = state !== null && typeof state === "object" && state.rootDescribeBlock !== undefined ? state.rootDescribeBlock : undefined;
  const before = root === undefined ? 0 : root.children.length;
  globals.test(${q(v.toBe)}, () => { expectNow()(checksum(${q(v.word)})).toBe(${v.wrong}); });
  globals.test(${q(v.toEqual)}, () => { expectNow()([checksum(${q(v.word)})]).toEqual([${v.wrong}]); });
  globals.test(${q(v.toThrow)}, () => { expectNow()(() => checksum(${q(v.word)})).toThrow(); });
  globals.test(${q(v.pass)}, () => { expectNow()(checksum(${q(v.word)})).toBe(${v.right}); });
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
