import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { placeProvenance } from "../../../src/measure/provenance/place.js";
import { parseRecord } from "../../../src/measure/provenance/record.js";
import { NODE_PRELOAD_REST, NODE_REST_WRAP } from "../../../src/measure/provenance/node-hook.js";
import { tempDir } from "../../helpers/git-repo.js";

// Issue 19's cost: the rest of Node's preload is compiled by the gate into a V8 code cache beside it
// (src/measure/provenance/node-cache.ts), which each process of the run reads instead of compiling the
// text. Whatever the cache, the preload records: a cache V8 rejects leaves the text to compile.

const CACHE = `record-rest.${process.versions.v8}.cache`;

/** A node:test run of two passing tests with the run's NODE_OPTIONS; its record's processes. */
async function recorded(tweak: (nodeDir: string) => void, flags: string[] = [], more: Record<string, string> = {}): Promise<ReturnType<typeof parseRecord>["processes"]> {
  const gate = tempDir("ranex-node-cache-gate-");
  const tree = tempDir("ranex-node-cache-tree-");
  mkdirSync(join(tree, "test"));
  writeFileSync(join(tree, "test", "a.test.js"), 'const test = require("node:test");\ntest("one", () => {});\ntest("two", () => {});\n');
  for (const [name, text] of Object.entries(more)) writeFileSync(join(tree, name), text.replaceAll("$GATE", gate));
  const placed = await placeProvenance("node --test test/", gate, gate, tree);
  tweak(join(gate, "node"));
  execFileSync("node", [...flags, "--test", "--test-reporter=junit", "test/"], { cwd: tree, stdio: "ignore", env: { PATH: process.env.PATH, NODE_OPTIONS: placed.nodeOptions ?? "" } });
  const { text } = await placed.pipe!.finish();
  return parseRecord(text, tree).processes;
}

/** Whether this node takes `cache` for the rest's text as the preload wraps it (no flags: a run's defaults). */
function accepted(nodeDir: string): boolean {
  const check = `const vm = require("node:vm"); const fs = require("node:fs");
const text = ${JSON.stringify(NODE_REST_WRAP[0])} + fs.readFileSync(process.argv[1], "utf8") + ${JSON.stringify(NODE_REST_WRAP[1])};
process.stdout.write(String(new vm.Script(text, { cachedData: fs.readFileSync(process.argv[2]) }).cachedDataRejected));`;
  return execFileSync("node", ["-e", check, join(nodeDir, NODE_PRELOAD_REST), join(nodeDir, CACHE)], { encoding: "utf8" }) === "false";
}

const child = { testFile: "test/a.test.js", ended: true, passed: ["one", "two"] };

describe("Node's preload compiled ahead", () => {
  it("places a cache this node takes for the rest's text, and the run records as before", async () => {
    let nodeDir = "";
    const processes = await recorded((dir) => { nodeDir = dir; });
    expect(readdirSync(nodeDir)).toContain(CACHE);
    expect(accepted(nodeDir)).toBe(true);
    expect(processes).toEqual([expect.objectContaining({ lang: "node", ...child })]);
  });

  it("names the rest's frames by the path the run sees, not the folder the cache was made in", async () => {
    // A module of the tree writes the stack it loads under: the preload's loader watch is on it.
    const stackFile = join(tempDir("ranex-node-cache-stack-"), "stack.txt");
    await recorded(() => {}, [], {
      "test/b.test.js": `require("./loaded.js");\nrequire("node:test")("three", () => {});\n`,
      "test/loaded.js": `require("node:fs").writeFileSync(${JSON.stringify(stackFile)}, new Error("where").stack);\n`,
    });
    const stack = readFileSync(stackFile, "utf8");
    expect(stack).toMatch(new RegExp(`/ranex-node-cache-gate-[^/]+/node/${NODE_PRELOAD_REST.replace(".", "\\.")}:`));
    expect(stack).not.toMatch(/ranex-node-cache-[A-Za-z0-9]{6}\//);
  });

  it("reads the cache by the fs binding only on a Node version the gate saw do it, and records the same either way", async () => {
    let preload = "";
    const fast = await recorded((dir) => { preload = readFileSync(join(dir, "record.cjs"), "utf8"); });
    // This very node read a cache that way when the gate made it: its version is named.
    expect(preload).toContain(`${JSON.stringify([process.version])}.includes(process.version)`);
    expect(fast).toEqual([expect.objectContaining({ lang: "node", ...child })]);
    // A version the gate did not see: readFileSync, as before.
    const other = await recorded((dir) => {
      const file = join(dir, "record.cjs");
      writeFileSync(file, readFileSync(file, "utf8").replace(JSON.stringify([process.version]), '["v0.0.0"]'));
    });
    expect(other).toEqual([expect.objectContaining({ lang: "node", ...child })]);
    // A cache larger than the one the preload was written for is not half read: the text is compiled.
    const grown = await recorded((dir) => writeFileSync(join(dir, CACHE), Buffer.concat([readFileSync(join(dir, CACHE)), Buffer.alloc(4096)])));
    expect(grown).toEqual([expect.objectContaining({ lang: "node", ...child })]);
  });

  it("records the same when V8 rejects the cache (damaged, or made under other flags) or there is none", async () => {
    const damaged = await recorded((dir) => {
      const bytes = readFileSync(join(dir, CACHE));
      for (let i = 0; i < bytes.length; i += 64) bytes[i] = bytes[i]! ^ 0xff;
      writeFileSync(join(dir, CACHE), bytes);
    });
    expect(damaged).toEqual([expect.objectContaining({ lang: "node", ...child })]);
    const flags = await recorded(() => {}, ["--stack-size=900"]);
    // --stack-size is no option of the quiet parent's (src/measure/provenance/node-parent.ts): node --test's own process records too.
    expect(flags).toEqual([expect.objectContaining({ lang: "node", ended: true }), expect.objectContaining({ lang: "node", ...child })]);
    const none = await recorded((dir) => rmSync(join(dir, CACHE)));
    expect(none).toEqual([expect.objectContaining({ lang: "node", ...child })]);
  });
});
