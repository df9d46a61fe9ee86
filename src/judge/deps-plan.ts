// The parent's half of "dependencies installed once": the key over the base tree (lock files are
// frozen, so base and head share it) and, when the cache has nothing for it, a clean copy of the
// base for the one setup to run in. Nothing a PR wrote can reach that copy, so nothing it wrote
// can enter the cache.
import { isAbsolute, join } from "node:path";
import type { Policy } from "../policy/schema.js";
import { profileDigest } from "../sandbox/index.js";
import type { SandboxProfile } from "../sandbox/types.js";
import type { Repository } from "../workspace/index.js";
import { lookupDependencies } from "../measure/deps/cache.js";
import { dependencyKey } from "../measure/deps/key.js";
import type { DepsPlan } from "../measure/plan.js";
import { presentFrozen } from "./run-plan.js";
import { usesGateGoCache } from "../runners/go.js";
import { DEFAULT_KEEP, DEFAULT_RETRY_MINUTES } from "../measure/deps/go-std-store.js";

export const DEFAULT_DEPS_CACHE_MB = 4096;

/** `RANEX_DEPS_CACHE_MB` (default 4096) in bytes; a value that is not a positive number keeps the default. */
export function depsCacheBytes(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const mb = Number(env.RANEX_DEPS_CACHE_MB ?? DEFAULT_DEPS_CACHE_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : DEFAULT_DEPS_CACHE_MB) * 1024 * 1024;
}

/**
 * Where the gate keeps its Go standard-library layers: `RANEX_GO_STD_DIR` when set (one folder may
 * serve every data folder of a machine: only the gate writes it), else `<data dir>/cache/go-std`.
 */
export function goStdCacheDir(dataDir: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const shared = env.RANEX_GO_STD_DIR;
  return shared !== undefined && isAbsolute(shared) ? shared : join(dataDir, "cache", "go-std");
}

/**
 * The operator's knobs of the standard-library layers: `RANEX_GO_STD_RETRY_MINUTES` (default 60),
 * how long a failed build is believed before a judgment tries again; `RANEX_GO_STD_KEEP` (default
 * 4), how many layers are kept (the least recently used go first). A value that is not a positive
 * number (0 for KEEP: at least the judgment's own) keeps the default.
 */
export function goStdKnobs(env: Readonly<Record<string, string | undefined>> = process.env): { retryMs: number; keep: number } {
  const retry = Number(env.RANEX_GO_STD_RETRY_MINUTES ?? DEFAULT_RETRY_MINUTES);
  const keep = Number(env.RANEX_GO_STD_KEEP ?? DEFAULT_KEEP);
  return {
    retryMs: (Number.isFinite(retry) && retry >= 0 ? retry : DEFAULT_RETRY_MINUTES) * 60_000,
    keep: Number.isInteger(keep) && keep >= 0 ? keep : DEFAULT_KEEP,
  };
}

export interface DepsPlanInput {
  repo: Repository;
  base: string;
  policy: Policy;
  profile: SandboxProfile;
  dataDir: string;
  scratch: string;
  frozenPaths: readonly string[];
}

/** The plan's `deps`, or undefined when the policy has no setup. */
export async function planDependencies(input: DepsPlanInput): Promise<DepsPlan | undefined> {
  const { tests } = input.policy;
  if (tests.setup === undefined) return undefined;
  const { key } = dependencyKey({
    files: await input.repo.listFiles(input.base), inputs: tests.setup_inputs, setup: tests.setup,
    setupNetwork: tests.setup_network, profile: profileDigest(input.profile), repository: input.repo.mirrorDir,
  });
  const cacheDir = join(input.dataDir, "deps");
  const maxBytes = depsCacheBytes();
  // Go's standard library, compiled once per toolchain by the gate (src/measure/deps/go-std.ts).
  const goStd = [tests.setup, tests.command].some(usesGateGoCache) ? { goStd: { cacheDir: goStdCacheDir(input.dataDir), scratchDir: input.scratch, ...goStdKnobs() } } : {};
  if (await lookupDependencies(cacheDir, key) !== null) return { cacheDir, key, maxBytes, setupTree: null, ...goStd };
  const treeDir = join(input.scratch, "tree-setup");
  await input.repo.materialise(input.base, treeDir);
  return { cacheDir, key, maxBytes, setupTree: { treeDir, readonly: await presentFrozen(treeDir, input.frozenPaths) }, ...goStd };
}
