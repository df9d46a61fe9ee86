import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { placeProvenance } from "../../../src/measure/provenance/place.js";
import { parseRecord } from "../../../src/measure/provenance/record.js";
import { tempDir } from "../../helpers/git-repo.js";

// Issue 19's cost: on Node 20 the preload sees fs.promises' reads at the fs binding's openFileHandle
// (src/measure/provenance/node-hook.ts) instead of wrapping fs.promises.readFile, which loaded
// internal/fs/promises in every test file's process. The test data a test reads through fs/promises,
// from CommonJS or an ES module, must still be in the record, and a file only written must not.

/** A node:test run of a CommonJS and an ES module test file that read data through fs/promises; the data the record holds. */
async function dataRead(extraOptions: string): Promise<{ data: { path: string; by: string }[]; stderr: string }> {
  const gate = tempDir("ranex-node-data-gate-");
  const tree = tempDir("ranex-node-data-tree-");
  mkdirSync(join(tree, "test"));
  mkdirSync(join(tree, "data"));
  for (const name of ["a.json", "b.txt", "c.txt", "d.txt"]) writeFileSync(join(tree, "data", name), "[1]\n");
  writeFileSync(join(tree, "test", "a.test.js"), `const test = require("node:test");
const fsp = require("node:fs/promises");
const { pathToFileURL } = require("node:url");
test("reads", async () => {
  await fsp.readFile("data/a.json", "utf8");
  await fsp.readFile(pathToFileURL(__dirname + "/../data/b.txt"));
  const handle = await fsp.open(__dirname + "/../data/c.txt", "r");
  await handle.readFile();
  await handle.close();
  await fsp.writeFile("data/written.txt", "x");
});
`);
  writeFileSync(join(tree, "test", "b.test.mjs"), `import test from "node:test";
import { readFile } from "node:fs/promises";
test("reads too", async () => {
  await readFile(new URL("../data/d.txt", import.meta.url));
});
`);
  const placed = await placeProvenance("node --test test/", gate, gate, tree);
  const options = `${placed.nodeOptions ?? ""} ${extraOptions}`.trim();
  const run = spawnSync("node", ["--test", "--test-reporter=dot", "test/"], { cwd: tree, encoding: "utf8", env: { PATH: process.env.PATH, NODE_OPTIONS: options } });
  expect(run.status).toBe(0);
  const { text } = await placed.pipe!.finish();
  return { data: parseRecord(text, tree).data ?? [], stderr: run.stderr };
}

const expected = [
  { path: "data/a.json", by: "test/a.test.js" },
  { path: "data/b.txt", by: "test/a.test.js" },
  { path: "data/c.txt", by: "test/a.test.js" },
  { path: "data/d.txt", by: "test/b.test.mjs" },
];

describe("Node's preload: test data read through fs/promises", () => {
  it("records what CommonJS and ES module tests read through fs/promises, not what they only wrote", async () => {
    const { data, stderr } = await dataRead("");
    expect(stderr).toBe("");
    expect([...data].sort((a, b) => a.path.localeCompare(b.path))).toEqual(expected);
  });

  it("records the same reads where process.binding warns (--pending-deprecation) and fs.promises.readFile is wrapped instead", async () => {
    const { data, stderr } = await dataRead("--pending-deprecation");
    expect(stderr).toBe("");
    // fs.promises.readFile's wrapper sees readFile, not an open and a FileHandle's read.
    expect([...data].sort((a, b) => a.path.localeCompare(b.path))).toEqual(expected.filter((d) => d.path !== "data/c.txt"));
  });
});
