// The dependency cache: one setup's result per dependency key, reused read-only by every run that
// has the key. Entries are written whole or not at all (a temporary directory renamed into place),
// only after a setup that exited 0 in time, and the least recently used go first when it is full.
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile, cp, mkdtemp } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { DepsInstall } from "../report-types.js";

export interface CachedDependencies {
  dir: string;
  /** Tree paths the setup created, each stored under `<dir>/files/<path>`. */
  entries: string[];
  bytes: number;
  /** The setup that filled the entry, so a hit can say when and in how long it was installed. */
  installed: DepsInstall | null;
}

interface Manifest {
  key: string;
  entries: string[];
  bytes: number;
  installed?: DepsInstall;
}

function entryDir(cacheDir: string, key: string): string {
  return join(cacheDir, key.replace(/^sha256:/, ""));
}

/** The cached result for `key`, marked as just used; null when there is none. */
export async function lookupDependencies(cacheDir: string, key: string): Promise<CachedDependencies | null> {
  const dir = entryDir(cacheDir, key);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, "manifest.json"), "utf8")) as Manifest;
  } catch {
    return null;
  }
  if (manifest.key !== key || !Array.isArray(manifest.entries)) return null;
  const now = new Date();
  await utimes(join(dir, "manifest.json"), now, now).catch(() => undefined);
  return { dir, entries: manifest.entries, bytes: manifest.bytes, installed: manifest.installed ?? null };
}

/** Host path of a cached entry, to mount read-only at `/work/<entry>`. */
export function cachedPath(cached: CachedDependencies, entry: string): string {
  return join(cached.dir, "files", entry);
}

async function sizeOf(path: string): Promise<number> {
  const info = await stat(path).catch(() => null);
  if (info === null) return 0;
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of await readdir(path)) total += await sizeOf(join(path, name));
  return total;
}

/**
 * Moves the setup's created entries out of `tree` into the cache under `key`. When another
 * judgment stored the same key meanwhile, its entry is kept and ours discarded: same key, same result.
 */
export async function storeDependencies(cacheDir: string, key: string, tree: string, entries: readonly string[], installed?: DepsInstall): Promise<CachedDependencies> {
  await mkdir(cacheDir, { recursive: true });
  const temp = await mkdtemp(join(cacheDir, ".incoming-"));
  try {
    for (const entry of entries) {
      const target = join(temp, "files", entry);
      await mkdir(dirname(target), { recursive: true });
      await rename(join(tree, entry), target).catch(async () => {
        await cp(join(tree, entry), target, { recursive: true, verbatimSymlinks: true });
      });
    }
    const bytes = await sizeOf(join(temp, "files"));
    const manifest: Manifest = { key, entries: [...entries], bytes, ...(installed === undefined ? {} : { installed }) };
    await writeFile(join(temp, "manifest.json"), JSON.stringify(manifest));
    await rename(temp, entryDir(cacheDir, key)).catch(async () => {
      await rm(temp, { recursive: true, force: true });
    });
  } catch (err) {
    await rm(temp, { recursive: true, force: true });
    throw err;
  }
  const stored = await lookupDependencies(cacheDir, key);
  if (stored === null) throw new Error(`the dependency cache entry for ${key} could not be written`);
  return stored;
}

/** Removes least recently used entries until the cache holds at most `maxBytes` (never `keep`). */
export async function evictDependencies(cacheDir: string, maxBytes: number, keep: string): Promise<string[]> {
  const names = await readdir(cacheDir).catch(() => [] as string[]);
  const entries: { name: string; used: number; bytes: number }[] = [];
  for (const name of names) {
    if (name.startsWith(".")) continue;
    try {
      const manifestPath = join(cacheDir, name, "manifest.json");
      const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as Manifest;
      entries.push({ name, used: (await stat(manifestPath)).mtimeMs, bytes: manifest.bytes });
    } catch {
      continue;
    }
  }
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  const evicted: string[] = [];
  for (const entry of entries.sort((a, b) => a.used - b.used)) {
    if (total <= maxBytes) break;
    if (entry.name === keep.replace(/^sha256:/, "")) continue;
    await rm(join(cacheDir, entry.name), { recursive: true, force: true });
    total -= entry.bytes;
    evicted.push(entry.name);
  }
  return evicted;
}
