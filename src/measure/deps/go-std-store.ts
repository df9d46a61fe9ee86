// What the gate keeps beside its standard-library layers (./go-std.ts, issue 22): a failed build,
// remembered per toolchain key so that every judgment does not pay a failing build of minutes
// again; when each layer was last used; and the eviction that keeps at most N layers.
import { lstat, readdir, readFile, rename, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** How long a failed build is believed before it is tried again (RANEX_GO_STD_RETRY_MINUTES). */
export const DEFAULT_RETRY_MINUTES = 60;
/** How many layers are kept (RANEX_GO_STD_KEEP): a toolchain and its flag sets, a few upgrades. */
export const DEFAULT_KEEP = 4;
/** A layer used this recently is never removed: a judgment may still have it beneath its trees. */
export const IN_USE_MS = 6 * 60 * 60 * 1000;

export interface Failure {
  reason: string;
  /** When it failed (ms since the epoch). */
  at: number;
}

const failureFile = (cacheDir: string, key: string): string => join(cacheDir, `.failed-${key}.json`);

/** The failure still believed for `key` (younger than `retryMs`), or null: build. */
export async function recentFailure(cacheDir: string, key: string, retryMs: number, now = Date.now()): Promise<Failure | null> {
  try {
    const failure = JSON.parse(await readFile(failureFile(cacheDir, key), "utf8")) as Failure;
    return typeof failure.reason === "string" && typeof failure.at === "number" && now - failure.at < retryMs && failure.at <= now ? failure : null;
  } catch {
    return null;
  }
}

export async function rememberFailure(cacheDir: string, key: string, reason: string): Promise<void> {
  const file = failureFile(cacheDir, key);
  await writeFile(`${file}.${process.pid}.tmp`, JSON.stringify({ reason, at: Date.now() } satisfies Failure));
  await rename(`${file}.${process.pid}.tmp`, file);
}

export const forgetFailure = (cacheDir: string, key: string): Promise<void> => rm(failureFile(cacheDir, key), { force: true });

/** The sentence a judgment shows while a failure is believed. */
export function failureText(failure: Failure, retryMs: number): string {
  const when = new Date(failure.at).toISOString().replace(/\.\d+Z$/, "Z");
  const next = new Date(failure.at + retryMs).toISOString().replace(/\.\d+Z$/, "Z");
  return `${failure.reason} (at ${when}; not tried again before ${next}, RANEX_GO_STD_RETRY_MINUTES, or until the toolchain changes)`;
}

/** Marks a layer used now (its `used` file's mtime): eviction removes the least recently used first. */
export async function markUsed(cacheDir: string, key: string): Promise<void> {
  const file = join(cacheDir, key, "used");
  const now = new Date();
  await utimes(file, now, now).catch(() => writeFile(file, ""));
}

/**
 * Keeps at most `keep` layers: the least recently used go first, never one in `keepKeys` (this
 * judgment's) nor one used within IN_USE_MS. Moved aside whole, then removed, so no reader finds
 * half a layer with its manifest. Returns the keys removed.
 */
export async function evictLayers(cacheDir: string, keep: number, keepKeys: ReadonlySet<string>, now = Date.now()): Promise<string[]> {
  const layers: { key: string; used: number }[] = [];
  for (const key of await readdir(cacheDir).catch(() => [] as string[])) {
    if (key.startsWith(".")) continue;
    const used = await lstat(join(cacheDir, key, "used")).then((s) => s.mtimeMs, () => lstat(join(cacheDir, key)).then((s) => s.mtimeMs, () => 0));
    layers.push({ key, used });
  }
  layers.sort((a, b) => b.used - a.used);
  const removed: string[] = [];
  for (const { key, used } of layers.slice(Math.max(keep, 0))) {
    if (keepKeys.has(key) || now - used < IN_USE_MS) continue;
    const aside = join(cacheDir, `.evicted-${key}-${process.pid}`);
    try {
      await rename(join(cacheDir, key), aside);
    } catch {
      continue;
    }
    await rm(aside, { recursive: true, force: true });
    await forgetFailure(cacheDir, key);
    removed.push(key);
  }
  return removed;
}
