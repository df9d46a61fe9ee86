// The canary family: tests the gate adds to the run that decides regression and task targets. Some
// must fail, each through one of the runner's own assertion paths (a plain raise, `assert`, unittest's
// asserts, node:assert strict and legacy, jest's and vitest's `expect`), and one must pass. A runner
// (or code under test) that rewrites results wholesale, or neuters an assertion library, reports one
// of them with the wrong outcome, which no honest run can do. Their names are drawn fresh each run
// from the words real tests use (./canary-names.ts), and they sit beside the tree's own test files:
// there is no prefix, no fixed environment variable, no fixed file name to look for.
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CaseResult, CanaryOutcome, TestReport } from "./report-types.js";
import { className, fileWords, phrases, pythonName, salt, titleOf } from "./canary-names.js";
import { besideTestFile, JS_TEST_FILE, PYTHON_TEST_FILE } from "./canary-place.js";

export type CanaryRunner = "pytest" | "node:test" | "vitest" | "jest";

export interface CanaryMember {
  name: string;
  /** The assertion path it fails (or passes) through. */
  via: string;
  expect: "fail" | "pass";
}

export interface PlacedCanary {
  /** The first canary that must fail: what a reason names when the family is spoken of as one. */
  name: string;
  runners: CanaryRunner[];
  members: CanaryMember[];
  /** Test files the gate wrote into the run's tree (relative paths); read-only in the run, removed after it. */
  treeFiles: string[];
  /** Added to the test command's environment (node:test's preload). */
  env: Record<string, string>;
  /** Why the canary could not be given to a runner the command names. */
  notes: string[];
}

/** The runners a test command starts, as far as its text tells. */
export function runnersOf(command: string): CanaryRunner[] {
  const found: CanaryRunner[] = [];
  if (/\bpy\.?test\b/.test(command)) found.push("pytest");
  if (/\bnode(?:js)?\b[^|;&]*\s--test\b/.test(command)) found.push("node:test");
  // A vitest and a jest canary in one tree would each break the other runner's collection.
  if (/\bvitest\b/.test(command)) found.push("vitest");
  else if (/\bjest\b|jest-run\.cjs/.test(command)) found.push("jest");
  return found;
}

/** What the canaries compute: a checksum of a word, so no literal in them gives the expected value away. */
export function checksum(text: string): number {
  let sum = 0;
  for (let i = 0; i < text.length; i += 1) sum += (i + 1) * text.charCodeAt(i);
  return sum % 1009;
}

/**
 * Writes the canaries for the runners `command` names. pytest, vitest and jest get a test file beside
 * one of the tree's own test files; node:test a preload (`seenAs/node/…`, on NODE_OPTIONS) that
 * registers them in the first test file's process, after that file has loaded what it tests.
 */
export async function placeCanary(command: string, treeDir: string, hostDir: string, seenAs: string): Promise<PlacedCanary> {
  const placed: PlacedCanary = { name: "", runners: [], members: [], treeFiles: [], env: {}, notes: [] };
  const runners = runnersOf(command);
  if (runners.length === 0) {
    placed.notes.push("the test command names no runner the gate can give a canary to (pytest, node --test, vitest, jest)");
    return placed;
  }
  const word = phrases(1)[0]?.join("") ?? "value";
  const right = checksum(word);
  const wrong = right + salt();
  for (const runner of runners) {
    if (runner === "pytest") {
      const file = await besideTestFile(treeDir, PYTHON_TEST_FILE, `test_${fileWords().join("_")}.py`);
      if (file === null) {
        placed.notes.push("pytest: the tree has no test_*.py file to place the canaries beside");
        continue;
      }
      const [raise, plain, pass, equal, truth, equalPass] = phrases(6).map(pythonName) as [string, string, string, string, string, string];
      const cls = className();
      await writeFile(join(treeDir, file), pythonCanaries({ word, right, wrong, raise, plain, pass, cls, equal, truth, equalPass }), { flag: "wx" });
      placed.treeFiles.push(file);
      placed.members.push(
        { name: raise, via: "a plain raise", expect: "fail" }, { name: plain, via: "assert", expect: "fail" },
        { name: equal, via: "unittest assertEqual", expect: "fail" }, { name: truth, via: "unittest assertTrue", expect: "fail" },
        { name: pass, via: "assert", expect: "pass" }, { name: equalPass, via: "unittest assertEqual", expect: "pass" },
      );
    } else if (runner === "node:test") {
      if (/\bNODE_OPTIONS\b/.test(command)) {
        placed.notes.push("node:test: the command sets NODE_OPTIONS itself, so the canary preload was not added");
        continue;
      }
      const [raise, strict, legacy, deep, pass] = phrases(5).map(titleOf) as [string, string, string, string, string];
      const name = randomBytes(6).toString("hex");
      await mkdir(join(hostDir, "node"), { recursive: true });
      await writeFile(join(hostDir, "node", `${name}.cjs`), nodeCanaries({ word, right, wrong, raise, strict, legacy, deep, pass, lock: `${name}.lock` }));
      placed.env.NODE_OPTIONS = `--require ${seenAs}/node/${name}.cjs`;
      placed.members.push(
        { name: raise, via: "a plain throw", expect: "fail" }, { name: strict, via: "node:assert strict equal", expect: "fail" },
        { name: legacy, via: "node:assert legacy equal", expect: "fail" }, { name: deep, via: "node:assert deepStrictEqual", expect: "fail" },
        { name: pass, via: "node:assert/strict equal", expect: "pass" },
      );
    } else {
      const extension = runner === "vitest" ? "mjs" : "js";
      const file = await besideTestFile(treeDir, JS_TEST_FILE, `${fileWords().join("-")}.test.${extension}`) ?? `${fileWords().join("-")}.test.${extension}`;
      const [raise, toBe, toEqual, pass] = phrases(4).map(titleOf) as [string, string, string, string];
      await writeFile(join(treeDir, file), expectCanaries(runner, { word, right, wrong, raise, toBe, toEqual, pass }), { flag: "wx" });
      placed.treeFiles.push(file);
      placed.members.push(
        { name: raise, via: "a plain throw", expect: "fail" }, { name: toBe, via: `${runner} expect().toBe`, expect: "fail" },
        { name: toEqual, via: `${runner} expect().toEqual`, expect: "fail" }, { name: pass, via: `${runner} expect().toBe`, expect: "pass" },
      );
    }
    placed.runners.push(runner);
  }
  placed.name = placed.members.find((m) => m.expect === "fail")?.name ?? "";
  return placed;
}

interface Values { word: string; right: number; wrong: number }

function pythonCanaries(v: Values & Record<"raise" | "plain" | "pass" | "cls" | "equal" | "truth" | "equalPass", string>): string {
  return `import unittest


def _checksum(text):
    return sum((i + 1) * ord(ch) for i, ch in enumerate(text)) % 1009


def ${v.raise}():
    got = _checksum(${JSON.stringify(v.word)})
    if got != ${v.wrong}:
        raise ValueError("expected ${v.wrong}, got %d" % got)


def ${v.plain}():
    assert _checksum(${JSON.stringify(v.word)}) == ${v.wrong}


def ${v.pass}():
    assert _checksum(${JSON.stringify(v.word)}) == ${v.right}


class ${v.cls}(unittest.TestCase):
    def ${v.equal}(self):
        self.assertEqual(_checksum(${JSON.stringify(v.word)}), ${v.wrong})

    def ${v.truth}(self):
        self.assertTrue(_checksum(${JSON.stringify(v.word)}) == ${v.wrong})

    def ${v.equalPass}(self):
        self.assertEqual(_checksum(${JSON.stringify(v.word)}), ${v.right})
`;
}

// Every node:test file runs in a process of its own; only the first to take the lock (in the run's
// private /tmp) registers the canaries, so each is reported once. Each waits a turn of the event loop
// and asks for node:assert when it runs, so it meets the library as the tests beside it do.
function nodeCanaries(v: Values & Record<"raise" | "strict" | "legacy" | "deep" | "pass" | "lock", string>): string {
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
  }
}
`;
}

function expectCanaries(runner: "vitest" | "jest", v: Values & Record<"raise" | "toBe" | "toEqual" | "pass", string>): string {
  const q = JSON.stringify;
  const head = runner === "vitest" ? `import { expect, test } from "vitest";\n\n` : "";
  return `${head}const checksum = (text) => [...text].reduce((sum, ch, i) => sum + (i + 1) * ch.charCodeAt(0), 0) % 1009;

test(${q(v.raise)}, () => {
  const got = checksum(${q(v.word)});
  if (got !== ${v.wrong}) throw new Error("expected ${v.wrong}, got " + got);
});
test(${q(v.toBe)}, () => { expect(checksum(${q(v.word)})).toBe(${v.wrong}); });
test(${q(v.toEqual)}, () => { expect([checksum(${q(v.word)})]).toEqual([${v.wrong}]); });
test(${q(v.pass)}, () => { expect(checksum(${q(v.word)})).toBe(${v.right}); });
`;
}

const RANK: Record<CaseResult, number> = { failed: 0, errored: 0, skipped: 1, passed: 2 };

type Placed = Pick<PlacedCanary, "name" | "runners" | "notes" | "members" | "treeFiles">;

/**
 * Takes the canaries out of a report, so they are never a regression, a target or a vanished test,
 * and says what became of each. A canary file that failed to load errored every canary in it.
 * Reported more than once (a parallel runner), the most suspicious result stands.
 */
export function stripCanary(report: TestReport, canary: Placed): { report: TestReport; outcome: CanaryOutcome } {
  const files = new Set(canary.treeFiles);
  const names = new Set(canary.members.map((m) => m.name));
  const isCanary = (c: { file: string | null; name: string }): boolean => (c.file !== null && files.has(c.file)) || names.has(c.name);
  const mine = report.cases.filter(isCanary);
  const others = report.cases.filter((c) => !mine.includes(c));
  const fileFailed = report.loadErrors.some((file) => files.has(file));
  const members = canary.members.map((member) => {
    let result: CaseResult | "absent" = fileFailed ? "errored" : "absent";
    for (const c of mine.filter((m) => m.name === member.name)) {
      if (result === "absent" || RANK[c.result] > RANK[result]) result = c.result;
    }
    return { ...member, result };
  });
  const mustFail = members.filter((m) => m.expect === "fail");
  let result: CanaryOutcome["result"] = "absent";
  for (const m of mustFail) if (m.result !== "absent" && (result === "absent" || RANK[m.result] > RANK[result])) result = m.result;
  const stripped: TestReport = {
    ...report,
    cases: others,
    duplicates: report.duplicates.filter((id) => !mine.some((c) => c.id === id)),
    loadErrors: report.loadErrors.filter((file) => !files.has(file)),
    ...(report.loadErrorMessages !== undefined ? { loadErrorMessages: report.loadErrorMessages.filter((m) => !files.has(m.file)) } : {}),
  };
  return {
    report: stripped,
    outcome: { name: canary.name, runners: [...canary.runners], result, othersRan: others.some((c) => c.result !== "skipped"), notes: [...canary.notes], members },
  };
}
