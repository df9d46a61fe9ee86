import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { placeProvenance } from "../../../src/measure/provenance/place.js";
import { parseRecord } from "../../../src/measure/provenance/record.js";
import { tempDir } from "../../helpers/git-repo.js";

// node:assert's loose comparisons under the preload (src/measure/provenance/node-loose.ts): what the
// record says, and what a failing test shows (the same as without the gate).

/** Runs `script` (a file of a scratch tree) with and without the run's NODE_OPTIONS: its output both ways, and the record's events. */
async function ran(script: string): Promise<{ plain: string; gated: string; events: string[] }> {
  const gate = tempDir("ranex-node-loose-gate-");
  const tree = tempDir("ranex-node-loose-tree-");
  writeFileSync(join(tree, "check.js"), script);
  const run = (options: string): string => execFileSync("node", ["check.js"], { cwd: tree, encoding: "utf8", env: { PATH: process.env.PATH, NODE_OPTIONS: options } });
  const plain = run("");
  const placed = await placeProvenance("node check.js", gate, gate, tree);
  const gated = run(placed.nodeOptions ?? "");
  const { text } = await placed.pipe!.finish();
  return { plain, gated, events: parseRecord(text, tree).events.map((e) => `${e.event}: ${e.what}`) };
}

const FAILURES = `"use strict";
const assert = require("node:assert");
for (const check of [() => assert.equal(1, 2), () => assert.notEqual(1, 1), () => assert.deepEqual({ a: [1] }, { a: [2] })]) {
  try { check(); } catch (error) { console.log(error.stack.split("\\n").slice(0, 2).join("\\n")); }
}
`;

describe("node:assert's loose comparisons under the preload", () => {
  it("a failing comparison shows the test's own frame first, as without the gate", async () => {
    const { plain, gated } = await ran(FAILURES);
    expect(plain).toContain("AssertionError [ERR_ASSERTION]: 1 == 2\n    at ");
    expect(gated).toBe(plain);
    expect(gated).not.toContain("record-rest.cjs");
  });

  it("names a conversion that decided, and not a comparison of primitives or of two objects", async () => {
    const { events } = await ran(`"use strict";
const assert = require("node:assert");
assert.equal(1, 1);
assert.deepEqual({ a: [1, "x"] }, { a: [1, "x"] });
assert.equal({ valueOf: () => 3 }, 3);
assert.notEqual(4, Object.assign(() => 0, { [Symbol.toPrimitive]: () => 5 }));
assert.deepEqual({ n: { deep: Object.assign(() => 0, { valueOf: () => 2 }) } }, { n: { deep: 2 } });
assert.deepEqual(new Map([["a", 1], ["b", { c: "x" }]]), new Map([["a", 1], ["b", { c: "x" }]]));
assert.deepEqual({ m: new Map([["k", Object.assign(() => 0, { valueOf: () => "seven" })]]) }, { m: new Map([["k", "seven"]]) });
`);
    expect(events.filter((e) => e.startsWith("loose: "))).toEqual([
      "loose: node:assert.equal compared an object of Object with a number (check.js)",
      "loose: node:assert.notEqual compared a function with a number (check.js)",
      "loose: node:assert.deepEqual compared a function with a number (check.js)",
      "loose: node:assert.deepEqual compared a function with a string (check.js)",
    ]);
  });
});
