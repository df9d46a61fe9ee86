import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cachedPath, evictDependencies, lookupDependencies, storeDependencies } from "../../../src/measure/deps/cache.js";
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
});
