import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cachedPath, evictDependencies, lookupDependencies, storeDependencies, WARM_DIR, WARM_TIME } from "../../../src/measure/deps/cache.js";
import { createdEntries, listTree } from "../../../src/measure/deps/capture.js";
import { dependencyKey } from "../../../src/measure/deps/key.js";

const dirs: string[] = [];
async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ranex-deps-test-"));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe("dependency key", () => {
  const files = [{ path: "package.json", blob: "a" }, { path: "package-lock.json", blob: "b" }, { path: "src/x.js", blob: "c" }];
  const base = { files, inputs: [], setup: "npm ci", setupNetwork: true, profile: "sha256:p" };

  it("depends on the lock files, the setup, its network and the profile, not on source files", () => {
    const key = dependencyKey(base);
    expect(key.files).toEqual(["package-lock.json", "package.json"]);
    expect(dependencyKey({ ...base, files: [...files.slice(0, 2), { path: "src/x.js", blob: "changed" }] }).key).toBe(key.key);
    expect(dependencyKey({ ...base, files: [{ path: "package.json", blob: "a" }, { path: "package-lock.json", blob: "other" }, files[2]!] }).key).not.toBe(key.key);
    expect(dependencyKey({ ...base, setup: "npm install" }).key).not.toBe(key.key);
    expect(dependencyKey({ ...base, setupNetwork: false }).key).not.toBe(key.key);
    expect(dependencyKey({ ...base, profile: "sha256:q" }).key).not.toBe(key.key);
  });

  it("takes the policy's extra inputs, and ignores vendored node_modules", () => {
    const more = [...files, { path: "scripts/install.sh", blob: "d" }, { path: "node_modules/x/package.json", blob: "e" }];
    expect(dependencyKey({ ...base, files: more, inputs: ["scripts/*.sh"] }).files).toEqual(["package-lock.json", "package.json", "scripts/install.sh"]);
  });
});

describe("dependency cache", () => {
  it("captures what a setup created and serves it back; the least recently used goes first", async () => {
    const tree = await temp();
    await writeFile(join(tree, "package.json"), "{}");
    await mkdir(join(tree, "src", "pkg"), { recursive: true });
    const before = await listTree(tree);
    await mkdir(join(tree, "node_modules", "left-pad"), { recursive: true });
    await writeFile(join(tree, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n");
    await mkdir(join(tree, "src", "pkg.egg-info"));
    const created = await createdEntries(tree, before);
    expect(created).toEqual(["node_modules", "src/pkg.egg-info"]);

    const cache = await temp();
    expect(await lookupDependencies(cache, "sha256:aa")).toBeNull();
    const stored = await storeDependencies(cache, "sha256:aa", tree, created);
    expect(await readFile(join(cachedPath(stored, "node_modules"), "left-pad", "index.js"), "utf8")).toBe("module.exports = 1;\n");
    expect((await lookupDependencies(cache, "sha256:aa"))?.entries).toEqual(created);

    const other = await temp();
    await writeFile(join(other, "big"), "x".repeat(1000));
    await storeDependencies(cache, "sha256:bb", other, ["big"]);
    await utimes(join(cache, "aa", "manifest.json"), new Date(1000), new Date(1000));
    expect(await evictDependencies(cache, 1000, "sha256:bb")).toEqual(["aa"]);
    expect(await lookupDependencies(cache, "sha256:aa")).toBeNull();
    expect(await lookupDependencies(cache, "sha256:bb")).not.toBeNull();
  });

  it("keeps a setup's build outputs apart as the warm layer, laid out as the tree and dated before any tree", async () => {
    const tree = await temp();
    const before = await listTree(tree);
    await mkdir(join(tree, ".ranex-deps", "go", "mod"), { recursive: true });
    await mkdir(join(tree, WARM_DIR, "go-build", "00"), { recursive: true });
    await writeFile(join(tree, WARM_DIR, "go-build", "00", "a-d"), "compiled");
    const created = await createdEntries(tree, before);
    expect(created).toEqual([".ranex-deps", WARM_DIR]);

    const cache = await temp();
    const stored = await storeDependencies(cache, "sha256:cc", tree, created);
    expect(stored.entries).toEqual([".ranex-deps"]);
    expect(stored.warm).toBe(join(cache, "cc", "warm"));
    expect(await readFile(join(stored.warm!, WARM_DIR, "go-build", "00", "a-d"), "utf8")).toBe("compiled");
    for (const path of [WARM_DIR, `${WARM_DIR}/go-build/00`, `${WARM_DIR}/go-build/00/a-d`]) {
      expect((await stat(join(stored.warm!, path))).mtimeMs, path).toBe(WARM_TIME.getTime());
    }
    expect((await lookupDependencies(cache, "sha256:cc"))?.warm).toBe(stored.warm);
    // A setup that built nothing has no warm layer.
    const plain = await temp();
    await mkdir(join(plain, "node_modules"));
    expect((await storeDependencies(cache, "sha256:dd", plain, ["node_modules"])).warm).toBeNull();
  });

  it("keeps what the repository's own scripts built during the install in the warm layer; packages, metadata and locks stay read-only", async () => {
    // yargs/yargs-parser: npm install runs the package's prepare, which compiles into build/; the
    // test command's `rimraf build` must be able to delete its own tree's copy (issue 22).
    const tree = await temp();
    await mkdir(join(tree, "src", "pkg"), { recursive: true });
    const before = await listTree(tree);
    for (const dir of ["node_modules/rimraf", "build", "src/pkg.egg-info", ".venv/lib"]) await mkdir(join(tree, dir), { recursive: true });
    await writeFile(join(tree, "build", "index.js"), "exports.x = 1;\n");
    await writeFile(join(tree, "src", "pkg", "_version.py"), "version = '0.0.0'\n");
    await writeFile(join(tree, "package-lock.json"), "{}");
    const created = await createdEntries(tree, before);
    expect(created).toEqual([".venv", "build", "node_modules", "package-lock.json", "src/pkg.egg-info", "src/pkg/_version.py"]);
    const cache = await temp();
    const stored = await storeDependencies(cache, "sha256:ff", tree, created);
    expect(stored.entries).toEqual([".venv", "node_modules", "package-lock.json", "src/pkg.egg-info"]);
    expect(await readFile(join(stored.warm!, "build", "index.js"), "utf8")).toBe("exports.x = 1;\n");
    expect(await readFile(join(stored.warm!, "src", "pkg", "_version.py"), "utf8")).toBe("version = '0.0.0'\n");
    expect((await stat(join(stored.warm!, "build", "index.js"))).mtimeMs).toBe(WARM_TIME.getTime());
  });

  it("leaves out of the warm layer the files a gate-made layer gave the setup, whatever the setup wrote there", async () => {
    const tree = await temp();
    const before = await listTree(tree);
    await mkdir(join(tree, WARM_DIR, "go-build", "00"), { recursive: true });
    // Seen by the setup through the gate's standard-library layer, then rewritten by it in place.
    await writeFile(join(tree, WARM_DIR, "go-build", "00", "std-d"), "rewritten by the setup");
    await writeFile(join(tree, WARM_DIR, "go-build", "00", "own-d"), "the module's own package");
    const cache = await temp();
    const stored = await storeDependencies(cache, "sha256:ee", tree, await createdEntries(tree, before), undefined, new Set([`${WARM_DIR}/go-build/00/std-d`]));
    expect(await listTree(stored.warm!)).toEqual(new Set([WARM_DIR, `${WARM_DIR}/go-build`, `${WARM_DIR}/go-build/00`, `${WARM_DIR}/go-build/00/own-d`]));
  });
});
