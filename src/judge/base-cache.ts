import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { canonicalJson, sha256Hex } from "../kernel/index.js";
import type { SuiteRun } from "../measure/report-types.js";

/**
 * Base runs cached under the data dir, so a second PR on the same base pays for one run. The key is
 * everything that could change the base run's outcome; an entry under another key is never read.
 */
export interface BaseCacheKey {
  base: string;
  /** sha256 over the overlaid new test files (path and blob). */
  overlay: string;
  policy: string;
  sandbox: string;
}

export function baseCacheKey(key: BaseCacheKey): string {
  return sha256Hex(canonicalJson({ v: 1, ...key }));
}

export async function readBaseCache(dataDir: string, key: BaseCacheKey): Promise<SuiteRun | null> {
  try {
    const stored = JSON.parse(await readFile(cachePath(dataDir, key), "utf8")) as { key: BaseCacheKey; run: SuiteRun };
    // Belt and braces: the file name is a digest of the key, and the stored key must match too.
    return canonicalJson(stored.key) === canonicalJson(key) ? stored.run : null;
  } catch {
    return null;
  }
}

export async function writeBaseCache(dataDir: string, key: BaseCacheKey, run: SuiteRun): Promise<void> {
  // A run that could not finish is not a fact about the base: never cache it.
  if (run.command === null || run.command.timedOut || run.command.violation !== null) return;
  const file = cachePath(dataDir, key);
  await mkdir(join(dataDir, "cache", "base"), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify({ key, run }));
  await rename(tmp, file);
}

function cachePath(dataDir: string, key: BaseCacheKey): string {
  return join(dataDir, "cache", "base", `${baseCacheKey(key)}.json`);
}
