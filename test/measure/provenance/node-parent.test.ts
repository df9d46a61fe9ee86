// node --test's own process gets the whole preload wherever code of the tree can run in it, and only
// its start and end where none can (src/measure/provenance/node-parent.ts). Real node, real preload.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE_REPORTER } from "../../../src/measure/reporters.js";
import { NODE_PRELOAD_REST, nodePreloadRestSource, nodePreloadSource } from "../../../src/measure/provenance/node-hook.js";

let dir: string;
let tree: string;
let gate: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ranex-node-parent-"));
  tree = join(dir, "tree");
  gate = join(dir, "gate");
  mkdirSync(join(tree, "test"), { recursive: true });
  mkdirSync(join(gate, "node"), { recursive: true });
  writeFileSync(join(tree, "test", "a.test.js"), 'require("node:test")("a", () => {});\n');
  // Code of the tree that would run in node --test's own process: a preload and a reporter.
  writeFileSync(join(tree, "helper.cjs"), "Array.prototype.sort = function () { return this; };\n");
  writeFileSync(join(tree, "reporter.mjs"), "Array.prototype.sort = function () { return this; };\nexport default async function* (source) { for await (const _ of source) yield ''; }\n");
  // The rest of the preload, marked: every process that loads it says so in the record.
  writeFileSync(join(gate, "node", "rest-real.cjs"), nodePreloadRestSource());
  // The rest writes the start line itself: the mark follows it.
  writeFileSync(join(gate, "node", NODE_PRELOAD_REST), 'const real = require("./rest-real.cjs");\n'
    + 'module.exports = (ctx) => { real(ctx); ctx.fs.appendFileSync(ctx.fifo, JSON.stringify({ k: "rest", pid: process.pid }) + "\\n"); };\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment without node:test's own variable (the process must be node --test's own). */
function env(nodeOptions: string): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, ...rest } = process.env;
  return { ...rest, NODE_OPTIONS: nodeOptions };
}

/** The record's lines from node --test's own process (the one whose parent is not a node:test run). */
function parentLines(args: string[]): { k: string; [key: string]: unknown }[] {
  const record = join(dir, `record-${Math.random().toString(16).slice(2)}`);
  writeFileSync(record, "");
  writeFileSync(join(gate, "node", "record.cjs"), nodePreloadSource(record, tree, gate, NODE_REPORTER));
  try {
    execFileSync("node", ["--test", ...args, "test/"], { cwd: tree, stdio: "ignore", env: env(`--require ${gate}/node/record.cjs`) });
  } catch { /* a failing run still leaves its record */ }
  const lines = readFileSync(record, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { k: string; pid: number; ppid?: number; tf?: string });
  // node --test's own pid, from a test file's process's start line (the quiet parent writes none of its own).
  const parent = lines.find((line) => line.k === "start" && line.tf !== undefined)!.ppid;
  return lines.filter((line) => line.pid === parent);
}

describe("node --test's own process", () => {
  // It wrote a start and an end line until issue 19's cost (1 M instructions there): nothing read them.
  it("says nothing when its options load nothing (a built-in reporter, or the gate's)", () => {
    expect(parentLines(["--test-reporter=junit"]).map((l) => l.k)).toEqual([]);
    expect(parentLines(["--test-reporter", NODE_REPORTER, "--test-reporter-destination=/dev/null"]).map((l) => l.k)).toEqual([]);
  });

  it("still loads the whole preload in each test file's process", () => {
    const record = join(dir, "record-children");
    writeFileSync(record, "");
    writeFileSync(join(gate, "node", "record.cjs"), nodePreloadSource(record, tree, gate, null));
    execFileSync("node", ["--test", "--test-reporter=junit", "test/"], { cwd: tree, stdio: "ignore", env: env(`--require ${gate}/node/record.cjs`) });
    const lines = readFileSync(record, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { k: string; tf?: string; pid: number });
    const child = lines.find((line) => line.tf !== undefined)!.pid;
    expect(lines.filter((l) => l.pid === child).map((l) => l.k)).toEqual(["start", "rest", "code", "ran", "end"]);
  });

  it("runs the whole preload when the command preloads a file of the tree there (-r)", () => {
    const lines = parentLines(["-r", "./helper.cjs", "--test-reporter=junit"]);
    expect(lines).toContainEqual(expect.objectContaining({ k: "tamper", ev: "swapped", what: "Array.prototype.sort" }));
  });

  it("runs the whole preload when the reporter is the tree's own", () => {
    const lines = parentLines(["--test-reporter=./reporter.mjs"]);
    expect(lines).toContainEqual(expect.objectContaining({ k: "tamper", ev: "swapped", what: "Array.prototype.sort" }));
  });

  it("runs the whole preload when NODE_OPTIONS holds more than the gate's preloads", () => {
    const record = join(dir, "record-options");
    writeFileSync(record, "");
    writeFileSync(join(gate, "node", "record.cjs"), nodePreloadSource(record, tree, gate, null));
    execFileSync("node", ["--test", "--test-reporter=junit", "test/"], { cwd: tree, stdio: "ignore", env: env(`--require ${gate}/node/record.cjs --require ${tree}/helper.cjs`) });
    const lines = readFileSync(record, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { k: string; pid: number; ppid?: number; tf?: string; what?: string });
    const parent = lines.find((line) => line.k === "start" && line.tf !== undefined)!.ppid;
    expect(lines.filter((l) => l.pid === parent)).toContainEqual(expect.objectContaining({ k: "tamper", what: "Array.prototype.sort" }));
  });
});
