import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { placeProvenance } from "../../../src/measure/provenance/place.js";
import { parseRecord } from "../../../src/measure/provenance/record.js";
import { tempDir } from "../../helpers/git-repo.js";

// Issue 19's cost: Python's hook is compiled by the gate, once, into the run's read-only folder, and
// the interpreter that runs loads it from there instead of compiling it in every process. Whatever
// the bytecode, the hook is installed: an interpreter whose file does not match compiles the source.

/** `python3 -v` with the run's PYTHONPATH: its import log says where each module's code came from. */
function importLog(tree: string, pythonPath: string): string {
  return spawnSync("/usr/bin/python3", ["-v", "-c", "pass"], { cwd: tree, env: { PATH: "/usr/bin:/bin", PYTHONPATH: pythonPath }, encoding: "utf8" }).stderr;
}

describe("Python's hook compiled ahead", () => {
  it("is loaded from the run's py/__pycache__, and the hook starts and ends its record", async () => {
    const gate = tempDir("ranex-pyc-gate-");
    const tree = tempDir("ranex-pyc-tree-");
    const placed = await placeProvenance("python3 -m pytest", gate, gate, tree);
    expect(readdirSync(join(gate, "py", "__pycache__"))).toContain("sitecustomize.cpython-311.pyc");
    const log = importLog(tree, placed.pythonPath ?? "");
    const { text } = await placed.pipe!.finish();
    expect(log).toContain(`code object from '${gate}/py/__pycache__/sitecustomize.cpython-311.pyc'`);
    expect(parseRecord(text, tree).processes).toEqual([expect.objectContaining({ lang: "python", ended: true })]);
  });

  it("does not match (another interpreter's, or damaged): the source is compiled and the hook still records", async () => {
    const gate = tempDir("ranex-pyc-gate-");
    const tree = tempDir("ranex-pyc-tree-");
    const placed = await placeProvenance("python3 -m pytest", gate, gate, tree);
    const pyc = join(gate, "py", "__pycache__", "sitecustomize.cpython-311.pyc");
    const bytes = readFileSync(pyc);
    bytes[0] = bytes[0]! ^ 0xff;
    writeFileSync(pyc, bytes);
    const log = importLog(tree, placed.pythonPath ?? "");
    const { text } = await placed.pipe!.finish();
    expect(log).not.toContain("code object from '" + pyc);
    expect(parseRecord(text, tree).processes).toEqual([expect.objectContaining({ lang: "python", ended: true })]);
  });
});
