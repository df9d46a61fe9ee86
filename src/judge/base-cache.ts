import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { canonicalJson, sha256Hex } from "../kernel/index.js";
import type { SuiteRun } from "../measure/report-types.js";

/**
 * Clean base runs (run 1: the base tree exactly, nothing of any PR in it) cached under the data dir
 * and shared by every PR on that base, so most judgments pay for the head only. The key is
 * everything that could change that run's outcome; nothing a PR controls is part of the run, so no
 * PR can put anything into another PR's base. An entry under another key is never read.
 */
export interface BaseCacheKey {
  /** The base's tree id: two commits with one tree run the same. */
  baseTree: string;
  policy: string;
  sandbox: string;
  /** The gate's version: its report writers and run layout are part of the run. */
  gate: string;
}

export function baseCacheKey(key: BaseCacheKey): string {
  return sha256Hex(canonicalJson({ v: 2, ...key }));
}

export async function readBaseCache(dataDir: string, key: BaseCacheKey): Promise<SuiteRun | null> {
  try {
    const stored = JSON.parse(await readFile(cachePath(dataDir, key), "utf8")) as { key: BaseCacheKey; run: SuiteRun };
    // Belt and braces: the file name is a digest of the key, and the stored key must match too.
    if (canonicalJson(stored.key) !== canonicalJson(key)) return null;
    return whyNotCacheable(stored.run) === null ? asCacheHit(stored.run) : null;
  } catch {
    return null;
  }
}

/**
 * A base run read back ran no setup now: its dependencies are, for this judgment, a cache hit on the
 * install it recorded (its "ran once in 35.1 s" would read as if setup ran again).
 */
function asCacheHit(run: SuiteRun): SuiteRun {
  if (run.deps === undefined || run.deps.hit) return run;
  const { setupMs, installed } = run.deps;
  return { ...run, deps: { key: run.deps.key, hit: true, setupMs: null, ...(installed !== undefined ? { installed } : setupMs === null ? {} : { installed: { ms: setupMs, on: "" } }) } };
}

/** Caches the run when it is a fact about the base; returns why not otherwise. */
export async function writeBaseCache(dataDir: string, key: BaseCacheKey, run: SuiteRun): Promise<string | null> {
  const why = whyNotCacheable(run);
  if (why !== null) return why;
  const file = cachePath(dataDir, key);
  await mkdir(join(dataDir, "cache", "base"), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, JSON.stringify({ key, run }));
  await rename(tmp, file);
  return null;
}

/**
 * Only a run that finished by itself, within its limits and the sandbox's rules, and left a readable
 * report is a fact about the base. Anything else (a full disk, a timeout, a killed process) may be
 * about the moment, and would fail every later PR on that base until the base moved.
 */
export function whyNotCacheable(run: SuiteRun): string | null {
  if (run.label !== "base") return `only the clean base run is shared, not ${run.label}`;
  for (const part of [run.setup, run.command]) {
    if (part === null) continue;
    if (part.timedOut) return "it timed out";
    if (part.violation !== null) return `it broke a sandbox rule or limit (${part.violation})`;
    if (part.exitCode === null) return "it was killed";
  }
  if (run.setup !== null && run.setup.exitCode !== 0) return "its setup failed";
  if (run.command === null) return "its test command did not run";
  if (run.report === null) return `it left no readable report (${run.reportError ?? "unknown"})`;
  return null;
}

function cachePath(dataDir: string, key: BaseCacheKey): string {
  return join(dataDir, "cache", "base", `${baseCacheKey(key)}.json`);
}
