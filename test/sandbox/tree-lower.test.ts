import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";
import { releaseTree } from "../../src/sandbox/tree-limit.js";
import { tempDir } from "../helpers/git-repo.js";
import { PROFILE } from "./helpers.js";

// The warm layer (a setup's build outputs, src/measure/deps/cache.ts) lies beneath a run's tree: the
// run reads it and writes over it as a compiler writes its cache, and none of it reaches the layer
// that the next tree, and the next PR with the same lock files, start from.
function warmLayer(): string {
  const dir = tempDir("ranex-warm-");
  mkdirSync(join(dir, ".ranex-warm/build"), { recursive: true });
  writeFileSync(join(dir, ".ranex-warm/build/entry"), "from setup\n");
  writeFileSync(join(dir, "shadowed.txt"), "from the layer\n");
  return dir;
}

const SCRIPT = [
  "cat .ranex-warm/build/entry",
  "cat shadowed.txt",
  "echo from-run > .ranex-warm/build/entry && echo write-ok",
  "echo new > .ranex-warm/build/added && echo add-ok",
  "rm -rf .ranex-warm && echo delete-ok",
].join("; ");

describe("a tree's warm lower layer", () => {
  it("is read and written by the run, copy-on-write: the layer keeps its content, the tree's own files win", async () => {
    const lower = warmLayer();
    const tree = tempDir("ranex-tree-");
    writeFileSync(join(tree, "shadowed.txt"), "from the tree\n");
    const sandbox = createSandbox(PROFILE);
    const first = await sandbox.run({ command: SCRIPT, workdir: tree, env: {}, timeoutMs: 10_000, network: false, treeLowers: [lower] });
    expect(first.violation).toBeNull();
    expect(first.outputTail).toContain("from setup");
    expect(first.outputTail).toContain("from the tree");
    expect(first.outputTail).not.toContain("from the layer");
    for (const word of ["write-ok", "add-ok", "delete-ok"]) expect(first.outputTail).toContain(word);
    expect(readFileSync(join(lower, ".ranex-warm/build/entry"), "utf8")).toBe("from setup\n");
    expect(readdirSync(join(lower, ".ranex-warm/build")).sort()).toEqual(["entry"]);

    // Another tree starts from the layer as the setup left it.
    const other = tempDir("ranex-tree-");
    const second = await sandbox.run({ command: "cat .ranex-warm/build/entry", workdir: other, env: {}, timeoutMs: 10_000, network: false, treeLowers: [lower] });
    expect(second.outputTail).toContain("from setup");
    releaseTree(tree);
    releaseTree(other);
    // Unmounted, the tree's folder holds only what git wrote there: the layer was never copied in.
    expect(readdirSync(tree)).toEqual(["shadowed.txt"]);
  });

  it("with backend none, is copied into the tree where the tree lacks it; the layer keeps its content", async () => {
    const lower = warmLayer();
    const tree = tempDir("ranex-tree-");
    writeFileSync(join(tree, "shadowed.txt"), "from the tree\n");
    const result = await createSandbox({ ...PROFILE, backend: "none" }).run({ command: SCRIPT, workdir: tree, env: {}, timeoutMs: 10_000, network: false, treeLowers: [lower] });
    expect(result.outputTail).toContain("from setup");
    expect(result.outputTail).toContain("from the tree");
    expect(result.outputTail).toContain("write-ok");
    expect(readFileSync(join(lower, ".ranex-warm/build/entry"), "utf8")).toBe("from setup\n");
  });

  it.each(["bwrap", "none"] as const)("several layers (%s): folders merge, the topmost layer that has a path wins, none changes", async (backend) => {
    const top = warmLayer();
    const below = tempDir("ranex-warm-");
    mkdirSync(join(below, ".ranex-warm/build"), { recursive: true });
    writeFileSync(join(below, ".ranex-warm/build/entry"), "from below\n");
    writeFileSync(join(below, ".ranex-warm/build/std"), "only below\n");
    const tree = tempDir("ranex-tree-");
    const command = "cat .ranex-warm/build/entry .ranex-warm/build/std; echo over > .ranex-warm/build/std && echo write-ok";
    const result = await createSandbox({ ...PROFILE, backend }).run({ command, workdir: tree, env: {}, timeoutMs: 10_000, network: false, treeLowers: [top, below] });
    expect(result.outputTail).toContain("from setup\nonly below\nwrite-ok");
    expect(readFileSync(join(below, ".ranex-warm/build/std"), "utf8")).toBe("only below\n");
    expect(readFileSync(join(below, ".ranex-warm/build/entry"), "utf8")).toBe("from below\n");
    releaseTree(tree);
  });
});
