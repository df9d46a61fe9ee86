// node:test's canary family (issue 19): a preload on NODE_OPTIONS from the gate's read-only folder that
// registers, in the first test file's process, tests failing through a plain throw and node:assert
// strict, legacy and deep equality, and one that must pass; and in every test file's process the
// registration watch (./registration-guard.ts): node:test's exported registration functions (`test`,
// `it`, `describe`, `suite`) become accessors, and a frozen test file whose process saw them replaced
// by a file the PR can change (code the test file imported before it took `test` from the module)
// gets the registration canary failing, naming the file and the writer.
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { phrases, titleOf } from "../measure/canary-names.js";
import { guardScript, FS_CJS, type GuardFacts } from "./registration-guard.js";
import type { CanaryContext, CanaryResult } from "./types.js";

export async function nodeTestCanaries(ctx: CanaryContext): Promise<CanaryResult> {
  if (/\bNODE_OPTIONS\b/.test(ctx.command)) return { note: "node:test: the command sets NODE_OPTIONS itself, so the canary preload was not added" };
  const [raise, strict, legacy, deep, pass, registered] = phrases(6).map(titleOf) as [string, string, string, string, string, string];
  const name = randomBytes(6).toString("hex");
  await mkdir(join(ctx.hostDir, "node"), { recursive: true });
  await writeFile(join(ctx.hostDir, "node", `${name}.cjs`), nodeCanaries({ ...ctx.values, raise, strict, legacy, deep, pass, registered, lock: `${name}.lock`, tree: { ...ctx.tree ?? { treeRoot: ctx.treeDir, frozen: [] }, gate: ctx.seenAs } }));
  return {
    env: { NODE_OPTIONS: `--require ${ctx.seenAs}/node/${name}.cjs` },
    members: [
      { name: raise, via: "a plain throw", expect: "fail" }, { name: strict, via: "node:assert strict equal", expect: "fail" },
      { name: legacy, via: "node:assert legacy equal", expect: "fail" }, { name: deep, via: "node:assert deepStrictEqual", expect: "fail" },
      { name: pass, via: "node:assert/strict equal", expect: "pass" },
      { name: registered, via: "node:test's registration in every frozen test file", expect: "pass", failsAnywhere: true },
    ],
  };
}

type Values = CanaryContext["values"];

// Every node:test file runs in a process of its own; only the first to take the lock (in the run's
// private /tmp) registers the canaries, so each is reported once. Each waits a turn of the event loop
// and asks for node:assert when it runs, so it meets the library as the tests beside it do.
function nodeCanaries(v: Values & Record<"raise" | "strict" | "legacy" | "deep" | "pass" | "registered" | "lock", string> & { tree: GuardFacts }): string {
  const q = JSON.stringify;
  return `"use strict";
if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const fs = require("node:fs");
  const path = require("node:path");
  const os = require("node:os");
  let first = false;
  try {
    fs.closeSync(fs.openSync(path.join(os.tmpdir(), ${q(v.lock)}), "wx"));
    first = true;
  } catch {}
  if (first) {
    const { test } = require("node:test");
    const checksum = (text) => [...text].reduce((sum, ch, i) => sum + (i + 1) * ch.charCodeAt(0), 0) % 1009;
    const later = () => new Promise((resolve) => setImmediate(resolve));
    test(${q(v.raise)}, async () => {
      await later();
      const got = checksum(${q(v.word)});
      if (got !== ${v.wrong}) throw new Error("expected ${v.wrong}, got " + got);
    });
    test(${q(v.strict)}, async () => { await later(); require("node:assert").strict.equal(checksum(${q(v.word)}), ${v.wrong}); });
    test(${q(v.legacy)}, async () => { await later(); require("node:assert").equal(checksum(${q(v.word)}), ${v.wrong}); });
    test(${q(v.deep)}, async () => { await later(); require("node:assert").deepStrictEqual([checksum(${q(v.word)})], [${v.wrong}]); });
    test(${q(v.pass)}, async () => { await later(); require("node:assert/strict").equal(checksum(${q(v.word)}), ${v.right}); });
    test(${q(v.registered)}, () => {});
  }
  {
    ${guardScript(v.tree, FS_CJS)}
    const nodeTest = require("node:test");
    const main = process.argv[1];
    let told = false;
    const tell = () => {
      const seen = told ? null : guard.check(main);
      if (seen === null) return;
      told = true;
      nodeTest.test(${q(v.registered)}, () => { throw new Error(seen + " (code the PR can change took part in registering a frozen test)"); });
    };
    guard.watchGlobals(["test", "it", "describe", "suite"], nodeTest, "node:test's exports", tell);
    setImmediate(tell);
  }
}
`;
}

