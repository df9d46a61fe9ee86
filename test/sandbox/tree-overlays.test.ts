import { lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { PROFILE } from "./helpers.js";

// The cached dependencies are shown over each run's tree read-only (src/measure/deps): a run uses
// them, but nothing it does reaches the cache that later runs and PRs share.
function cached(): string {
  const dir = tempDir("ranex-deps-");
  mkdirSync(join(dir, "node_modules/x"), { recursive: true });
  writeFileSync(join(dir, "node_modules/x/index.js"), "module.exports = 7;\n");
  return dir;
}

describe("tree overlays", () => {
  it("are readable at /work/<path> and refuse every write, rename and delete; the cache keeps its content", async () => {
    const cache = cached();
    const tree = tempDir("ranex-tree-");
    // The change committed its own node_modules: the cached one replaces it.
    mkdirSync(join(tree, "node_modules/x"), { recursive: true });
    writeFileSync(join(tree, "node_modules/x/index.js"), "module.exports = 666;\n");
    const result = await createSandbox(PROFILE).run({
      command: [
        "cat node_modules/x/index.js",
        "echo spoiled > node_modules/x/index.js || echo write-refused",
        "touch node_modules/x/new.js || echo add-refused",
        "rm -rf node_modules/x || echo delete-refused",
        "mv node_modules gone || echo rename-refused",
        "echo ok > beside.txt && echo beside-ok",
      ].join("; "),
      workdir: tree, env: {}, timeoutMs: 10_000, network: false, treeOverlays: [{ host: join(cache, "node_modules"), path: "node_modules" }],
    });
    expect(result.violation).toBeNull();
    expect(result.outputTail).toContain("module.exports = 7;");
    for (const word of ["write-refused", "add-refused", "delete-refused", "rename-refused", "beside-ok"]) expect(result.outputTail).toContain(word);
    expect(readFileSync(join(cache, "node_modules/x/index.js"), "utf8")).toBe("module.exports = 7;\n");
  });

  it("recreate a link the setup made instead of following it on the host", async () => {
    const cache = tempDir("ranex-deps-");
    symlinkSync("/etc", join(cache, "evil"));
    const tree = tempDir("ranex-tree-");
    const result = await createSandbox(PROFILE).run({
      command: "cat evil/shadow 2>&1 || echo no-shadow", workdir: tree, env: {}, timeoutMs: 10_000, network: false,
      treeOverlays: [{ host: join(cache, "evil"), path: "evil" }],
    });
    expect(result.outputTail).toContain("no-shadow");
    expect(lstatSync(join(tree, "evil")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(tree, "evil"))).toBe("/etc");
  });

  it("refuse a tree that has a link where the deps' folder goes, saying which", async () => {
    const cache = cached();
    const tree = tempDir("ranex-tree-");
    const outside = tempDir("ranex-host-");
    symlinkSync(outside, join(tree, "pkg"));
    const result = await createSandbox(PROFILE).run({
      command: "true", workdir: tree, env: {}, timeoutMs: 10_000, network: false,
      treeOverlays: [{ host: join(cache, "node_modules"), path: "pkg/node_modules" }],
    });
    expect(result.exitCode).toBeNull();
    expect(result.violation).toMatch(/"pkg\/node_modules" would go under "pkg", which this tree has as a link or a file/);
  });

  it("with backend none, are links to the cached entry", async () => {
    const cache = cached();
    const tree = tempDir("ranex-tree-");
    const result = await createSandbox({ ...PROFILE, backend: "none" }).run({
      command: "cat node_modules/x/index.js", workdir: tree, env: {}, timeoutMs: 10_000, network: false,
      treeOverlays: [{ host: join(cache, "node_modules"), path: "node_modules" }],
    });
    expect(result.outputTail).toContain("module.exports = 7;");
    expect(readlinkSync(join(tree, "node_modules"))).toBe(join(cache, "node_modules"));
  });
});

describe("a cached folder in the tree", () => {
  // Found on pillarjs/path-to-regexp (issue 15): vite bundles vitest.config.mts into
  // node_modules/.vite-temp, so every vitest run failed on the read-only cached node_modules.
  it("takes new entries beside the cached ones (a tool's cache), for this run only, while the cached entries stay read-only", async () => {
    const cache = cached();
    symlinkSync("x/index.js", join(cache, "node_modules/main.js"));
    const tree = tempDir("ranex-tree-");
    const overlays = [{ host: join(cache, "node_modules"), path: "node_modules" }];
    const first = await createSandbox(PROFILE).run({
      command: [
        "mkdir -p node_modules/.vite-temp && echo cfg > node_modules/.vite-temp/config.mjs && cat node_modules/.vite-temp/config.mjs",
        "cat node_modules/main.js",
        "touch node_modules/x/new.js || echo add-refused",
        "rm -rf node_modules/x || echo delete-refused",
      ].join("; "),
      workdir: tree, env: {}, timeoutMs: 10_000, network: false, treeOverlays: overlays,
    });
    expect(first.violation).toBeNull();
    expect(first.outputTail).toContain("cfg");
    expect(first.outputTail).toContain("module.exports = 7;");
    expect(first.outputTail).toContain("add-refused");
    expect(first.outputTail).toContain("delete-refused");
    const second = await createSandbox(PROFILE).run({
      command: "ls -A node_modules", workdir: tree, env: {}, timeoutMs: 10_000, network: false, treeOverlays: overlays,
    });
    expect(second.outputTail.split("\n").filter((l) => l !== "").sort()).toEqual(["main.js", "x"]);
    expect(readFileSync(join(cache, "node_modules/x/index.js"), "utf8")).toBe("module.exports = 7;\n");
    expect(lstatSync(join(cache, "node_modules/.vite-temp"), { throwIfNoEntry: false })).toBeUndefined();
  });
});
