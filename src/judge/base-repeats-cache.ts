// tests.stable's repeats of the task's targets on the clean base, cached beside the base run
// (./base-cache.ts) under the same key and the ids they ran (issue 22: warm judgments cost about one
// suite run). A warm judgment read the base run from the cache and then built the base tree from
// nothing to repeat the targets there: on java-diff-utils (Maven) the base's first repeat was the
// longest run after the head's. The targets are the task's, on the base; what the repeats saw is a
// fact about the base as much as its run is, and is believed for the same reasons and no others.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { canonicalJson, sha256Hex } from "../kernel/index.js";
import type { SuiteRun } from "../measure/report-types.js";
import { baseCacheKey, whyNotCacheable, type BaseCacheKey } from "./base-cache.js";

/** Which repeats: the ids each ran (sorted) and how many runs. */
export interface RepeatsKey { ids: readonly string[]; count: number }

function cachePath(dataDir: string, key: BaseCacheKey, repeats: RepeatsKey): string {
  const which = sha256Hex(canonicalJson({ ids: [...repeats.ids].sort(), count: repeats.count })).slice(0, 32);
  return join(dataDir, "cache", "base", `${baseCacheKey(key)}-repeats-${which}.json`);
}

/** Why these runs are not the base's repeats of exactly these ids, or null when they can be shared. */
export function whyRepeatsNotCacheable(runs: readonly SuiteRun[], repeats: RepeatsKey): string | null {
  if (runs.length !== repeats.count) return `${runs.length} repeats made, ${repeats.count} asked for`;
  const ids = canonicalJson([...repeats.ids].sort());
  for (const run of runs) {
    const why = whyNotCacheable(run);
    if (why !== null) return why;
    if (run.selectionLost !== undefined) return `a repeat could not select (${run.selectionLost})`;
    if (run.selected === undefined || canonicalJson([...run.selected].sort()) !== ids) return "a repeat ran other ids";
  }
  return null;
}

export async function readBaseRepeats(dataDir: string, key: BaseCacheKey, repeats: RepeatsKey): Promise<SuiteRun[] | null> {
  if (repeats.count < 1 || repeats.ids.length === 0) return null;
  try {
    const stored = JSON.parse(await readFile(cachePath(dataDir, key, repeats), "utf8")) as { key: BaseCacheKey; repeats: RepeatsKey; runs: SuiteRun[] };
    if (canonicalJson(stored.key) !== canonicalJson(key) || canonicalJson(stored.repeats) !== canonicalJson({ ids: [...repeats.ids].sort(), count: repeats.count })) return null;
    return whyRepeatsNotCacheable(stored.runs, repeats) === null ? stored.runs : null;
  } catch {
    return null;
  }
}

/** Caches the base's repeats of `repeats.ids` (those among `runs` that ran exactly them); returns why not otherwise. */
export async function writeBaseRepeats(dataDir: string, key: BaseCacheKey, repeats: RepeatsKey, runs: readonly SuiteRun[]): Promise<string | null> {
  if (repeats.count < 1 || repeats.ids.length === 0) return "nothing to repeat";
  const ids = canonicalJson([...repeats.ids].sort());
  const exact = runs.filter((r) => r.selected !== undefined && canonicalJson([...r.selected].sort()) === ids);
  const why = whyRepeatsNotCacheable(exact, repeats);
  if (why !== null) return why;
  const file = cachePath(dataDir, key, repeats);
  await mkdir(join(dataDir, "cache", "base"), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, JSON.stringify({ key, repeats: { ids: [...repeats.ids].sort(), count: repeats.count }, runs: exact }));
  await rename(tmp, file);
  return null;
}
