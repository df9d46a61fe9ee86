import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { placeProvenance } from "../../../src/measure/provenance/place.js";
import { parseRecord } from "../../../src/measure/provenance/record.js";
import { tempDir } from "../../helpers/git-repo.js";

// What code under test replaced in node:test's child (src/measure/provenance/node-planted.ts): every
// slot that can change (configurable or writable) is compared as each test ends and at exit; one that
// cannot (most getters of node's streams and sockets) is not read at all. A real node --test with the preload.

/** A node:test run of `test/a.test.js` (requiring `src/m.js`) with the run's NODE_OPTIONS; its record's events. */
async function events(module: string): Promise<string[]> {
  const gate = tempDir("ranex-node-planted-gate-");
  const tree = tempDir("ranex-node-planted-tree-");
  mkdirSync(join(tree, "test"));
  mkdirSync(join(tree, "src"));
  writeFileSync(join(tree, "src", "m.js"), module);
  writeFileSync(join(tree, "test", "a.test.js"), 'const test = require("node:test");\nrequire("../src/m.js");\ntest("one", () => {});\ntest("two", () => {});\n');
  const placed = await placeProvenance("node --test test/", gate, gate, tree);
  execFileSync("node", ["--test", "--test-reporter=junit", "test/"], { cwd: tree, stdio: "ignore", env: { PATH: process.env.PATH, NODE_OPTIONS: placed.nodeOptions ?? "" } });
  const { text } = await placed.pipe!.finish();
  return parseRecord(text, tree).events.map((e) => `${e.event} ${e.what}`);
}

describe("node:test's child: the report channel's slots", () => {
  it("a function of the channel replaced and put back before the process ends is seen as a test ends", async () => {
    const seen = await events(`const { Writable } = require("node:stream");
const write = Writable.prototype.write;
Writable.prototype.write = function (...args) { return write.apply(this, args); };
process.once("beforeExit", () => { Writable.prototype.write = write; });
`);
    expect(seen).toContain("replaced node:stream.Writable.prototype.write");
  });

  it("a getter of the channel that can be replaced, replaced and put back before the process ends, is seen as a test ends", async () => {
    const seen = await events(`const net = require("node:net");
const d = Object.getOwnPropertyDescriptor(net.Socket.prototype, "pending");
Object.defineProperty(net.Socket.prototype, "pending", { ...d, get() { return d.get.call(this); } });
process.once("beforeExit", () => { Object.defineProperty(net.Socket.prototype, "pending", d); });
`);
    expect(seen).toContain("replaced node:net.Socket.prototype.pending");
  });

  it("a getter that can never be replaced stays what it was (defining it again throws)", async () => {
    const seen = await events(`const net = require("node:net");
let threw = false;
try { Object.defineProperty(net.Socket.prototype, "bytesWritten", { get() { return 0; } }); } catch { threw = true; }
if (!threw) throw new Error("redefined");
`);
    expect(seen).toEqual([]);
  });

  it("an honest test file's process reports nothing replaced", async () => {
    expect(await events("module.exports = {};\n")).toEqual([]);
  });
});
