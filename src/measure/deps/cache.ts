// The dependency cache: one setup's result per dependency key, reused read-only by every run that
// has the key. Entries are written whole or not at all (a temporary directory renamed into place),
// only after a setup that exited 0 in time, and the least recently used go first when it is full.
//
// What a setup left under WARM_DIR (a build cache: Go's GOCACHE, Cargo's target folder) is kept
// apart, under `<entry>/warm/`, laid out as in the tree: it becomes a lower layer of each run's tree
// (src/sandbox/tree-limit.ts), so a run writes to it as compilers must, copy-on-write into the run's
// own tmpfs, and the entry itself never changes. Build tools key those caches on what they build
// from, so a warm layer saves the compiling of what did not change, never changes an outcome. Its
// files are dated WARM_TIME, long before any tree is written out: a tool that decides freshness by
// mtimes (cargo for the repository's own crates, make) then sees every tree file as newer than every
// warm output and rebuilds it, so the base's build never stands in for a head's sources, whether the
// head's tree was written before the setup ran (cold) or after (warm). What the repository's own
// scripts built during the install (npm's `prepare` into `build/`) goes there too (`isInstalled`).
import { lstat, lutimes, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile, cp, mkdtemp } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { DepsInstall } from "../report-types.js";

/** 2000-01-01T00:00:00Z: the date of every warm file (see above). */
export const WARM_TIME = new Date(946_684_800_000);

/** Where a setup leaves build outputs to be warmed from, in the tree (see above). */
export const WARM_DIR = ".ranex-warm";

export const isWarm = (entry: string): boolean => entry === WARM_DIR || entry.startsWith(`${WARM_DIR}/`);

/**
 * What an installer puts in the tree: the packages (`node_modules`, a virtualenv, the gate's own
 * `.ranex-deps`), their metadata and the lock files an install writes. These are shown read-only in
 * every run (src/sandbox/overlays.ts), and the provenance record counts code under them as installed.
 */
const INSTALLED_NAMES = new Set([
  "node_modules", ".venv", "venv", ".ranex-deps", "__pypackages__", ".yarn", ".pnp.cjs", ".pnp.loader.mjs", ".pdm-python",
  "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "bun.lock",
  "Cargo.lock", "poetry.lock", "pdm.lock", "uv.lock", "Pipfile.lock", "go.sum", "Gemfile.lock",
]);
const INSTALLED_SUFFIX = /\.(egg-info|dist-info|egg-link|pth)$/;

/**
 * Whether a setup's created entry is installed packages (read-only in runs) rather than what the
 * repository's own scripts built from the base's sources during the install: npm runs the package's
 * `prepare` (yargs/yargs-parser compiles its TypeScript into `build/`), a version file, a setuptools
 * `build/`. Those go to the warm layer instead, beneath each tree copy-on-write, since the test
 * command may rebuild them (`rimraf build && tsc` before mocha): a run deletes and rewrites its own
 * copy, and the stored entry never changes. Built from the base, they are the tree's code, not
 * installed code, to the provenance record (issue 22).
 */
export const isInstalled = (entry: string): boolean =>
  entry.split("/").some((part) => INSTALLED_NAMES.has(part) || INSTALLED_SUFFIX.test(part));

/** Stored in the warm layer (`<entry>/warm/`): the build caches under WARM_DIR, and what the repository's own scripts built. */
const toWarm = (entry: string): boolean => isWarm(entry) || !isInstalled(entry);

/** Whether a folder holds installed packages somewhere below it (links are not followed). */
async function holdsInstalled(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => null);
  if (info === null || !info.isDirectory()) return false;
  for (const name of await readdir(path)) if (isInstalled(name) || await holdsInstalled(join(path, name))) return true;
  return false;
}

/**
 * The setup's created entries, each wholly installed or wholly built: a new folder that is neither
 * but holds packages (a workspace's `packages/a/` with its `node_modules` beside its `dist/`) is
 * taken apart, so its packages are read-only in runs like any others and only the rest is warm.
 */
async function wholeEntries(tree: string, entries: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const visit = async (entry: string): Promise<void> => {
    if (isWarm(entry) || !toWarm(entry) || !(await holdsInstalled(join(tree, entry)))) {
      out.push(entry);
      return;
    }
    for (const name of (await readdir(join(tree, entry))).sort()) await visit(`${entry}/${name}`);
  };
  for (const entry of entries) await visit(entry);
  return out;
}

export interface CachedDependencies {
  dir: string;
  /** Tree paths the setup created, each stored under `<dir>/files/<path>` (warm ones apart). */
  entries: string[];
  /** The warm layer, laid out as the tree (`<dir>/warm`), or null when the setup left none. */
  warm: string | null;
  bytes: number;
  /** The setup that filled the entry, so a hit can say when and in how long it was installed. */
  installed: DepsInstall | null;
}

interface Manifest {
  key: string;
  entries: string[];
  /** Entries stored under `warm/` rather than `files/` (absent in entries older than the warm layer). */
  warm?: string[];
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
  const warm = Array.isArray(manifest.warm) && manifest.warm.length > 0 ? join(dir, "warm") : null;
  return { dir, entries: manifest.entries, warm, bytes: manifest.bytes, installed: manifest.installed ?? null };
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

/** Dates everything under `dir` (links themselves, not what they name) WARM_TIME. */
async function dateWarm(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => null);
  if (info === null) return;
  if (info.isDirectory()) for (const name of await readdir(dir)) await dateWarm(join(dir, name));
  await lutimes(dir, WARM_TIME, WARM_TIME);
}

/**
 * Moves the setup's created entries out of `tree` into the cache under `key`. When another
 * judgment stored the same key meanwhile, its entry is kept and ours discarded: same key, same result.
 * `shared`: tree paths of files a gate-made lower layer gave the setup (./go-std.ts); the setup's
 * copies of them are left out of its warm layer, whatever it wrote there.
 */
export async function storeDependencies(cacheDir: string, key: string, tree: string, created: readonly string[], installed?: DepsInstall, shared: ReadonlySet<string> = new Set()): Promise<CachedDependencies> {
  const entries = await wholeEntries(tree, created);
  await mkdir(cacheDir, { recursive: true });
  const temp = await mkdtemp(join(cacheDir, ".incoming-"));
  const own = (source: string): boolean => !shared.has(relative(tree, source));
  try {
    for (const entry of entries) {
      const target = join(temp, toWarm(entry) ? "warm" : "files", entry);
      await mkdir(dirname(target), { recursive: true });
      const copy = async (): Promise<void> => cp(join(tree, entry), target, { recursive: true, verbatimSymlinks: true, filter: own });
      if (isWarm(entry) && shared.size > 0) await copy();
      else await rename(join(tree, entry), target).catch(copy);
    }
    await dateWarm(join(temp, "warm"));
    const bytes = await sizeOf(join(temp, "files")) + await sizeOf(join(temp, "warm"));
    const warm = entries.filter(toWarm);
    const manifest: Manifest = {
      key, entries: entries.filter((e) => !toWarm(e)), ...(warm.length === 0 ? {} : { warm }), bytes, ...(installed === undefined ? {} : { installed }),
    };
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
