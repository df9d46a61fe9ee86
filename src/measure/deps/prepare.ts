// The once-only setup, in the measuring process before any run: the cached result for the
// dependency key, or one setup on a clean copy of the base whose created entries are stored for
// every later run with the same key. A setup that failed, timed out or broke a sandbox rule is
// never stored, and a store that failed is never used; every run then reports that failure (fail closed).
import type { Sandbox } from "../../sandbox/index.js";
import type { RunResult } from "../../sandbox/types.js";
import type { DepsPlan } from "../plan.js";
import type { DepsInstall } from "../report-types.js";
import { createdEntries, listTree } from "./capture.js";
import { cachedPath, evictDependencies, lookupDependencies, storeDependencies, type CachedDependencies } from "./cache.js";
import { NO_GATE_LAYERS, type GoStdLayers } from "./go-std.js";

export interface PreparedDependencies {
  key: string;
  /** The key's result was in the cache: no setup ran. */
  hit: boolean;
  /** The setup's own run on a miss (successful or not); null on a hit. */
  setup: RunResult | null;
  /** On a hit, the setup that filled the cache (null when its entry does not say). */
  installed: DepsInstall | null;
  /** What every run shows read-only at /work/<path>. */
  overlays: { host: string; path: string }[];
  /**
   * Copy-on-write lower layers of every run's tree, topmost first: the setup's build outputs
   * (./cache.ts, WARM_DIR) between the gate's own (./go-std.ts).
   */
  lowers: string[];
  /** Why no run can go on (the setup failed); null when the dependencies are ready. */
  failure: string | null;
  /** Entries evicted to keep the cache within its size, and why a store failed (then `failure` says no run goes on). */
  evicted: string[];
  storeError: string | null;
  /** What the setup line says of the gate's Go standard-library layers (./go-std.ts); absent without them. */
  goStd?: string;
}

export interface SetupCommand {
  command: string;
  network: boolean;
  timeoutSeconds: number;
  env: Record<string, string>;
}

const overlaysOf = (cached: CachedDependencies): PreparedDependencies["overlays"] =>
  cached.entries.map((path) => ({ host: cachedPath(cached, path), path }));

export async function prepareDependencies(sandbox: Sandbox, deps: DepsPlan, setup: SetupCommand, gate: GoStdLayers = NO_GATE_LAYERS): Promise<PreparedDependencies> {
  const made = await prepared(sandbox, deps, setup, gate);
  return gate.note === null ? made : { ...made, goStd: gate.note };
}

async function prepared(sandbox: Sandbox, deps: DepsPlan, setup: SetupCommand, gate: GoStdLayers): Promise<Omit<PreparedDependencies, "goStd">> {
  const none = { evicted: [], storeError: null };
  const lowers = (warm: string | null): string[] => [...gate.above, ...warm === null ? [] : [warm], ...gate.below];
  const cached = await lookupDependencies(deps.cacheDir, deps.key);
  if (cached !== null) return { key: deps.key, hit: true, setup: null, installed: cached.installed, overlays: overlaysOf(cached), lowers: lowers(cached.warm), failure: null, ...none };
  if (deps.setupTree === null) {
    // The parent saw the entry, then another judgment evicted it before we could use it.
    return { key: deps.key, hit: false, setup: null, installed: null, overlays: [], lowers: [], failure: `the dependency cache entry ${deps.key} was evicted while this judgment started; judge again`, ...none };
  }
  const tree = deps.setupTree.treeDir;
  const before = await listTree(tree);
  const run = await sandbox.run({
    command: setup.command, workdir: tree, env: setup.env, timeoutMs: setup.timeoutSeconds * 1000,
    network: setup.network, readonlyPaths: deps.setupTree.readonly, treeLowers: lowers(null),
  });
  const failure = setupFailure(run, setup.timeoutSeconds);
  if (failure !== null) return { key: deps.key, hit: false, setup: run, installed: null, overlays: [], lowers: [], failure, ...none };

  const entries = await createdEntries(tree, before);
  try {
    const stored = await storeDependencies(deps.cacheDir, deps.key, tree, entries, { ms: run.durationMs, on: new Date().toISOString().slice(0, 10) }, gate.shared);
    const evicted = await evictDependencies(deps.cacheDir, deps.maxBytes, deps.key);
    return { key: deps.key, hit: false, setup: run, installed: stored.installed, overlays: overlaysOf(stored), lowers: lowers(stored.warm), failure: null, evicted, storeError: null };
  } catch (err) {
    // A store that failed part way (a full disk) has moved some of the setup's entries out of its
    // tree and written none: what is left is neither the setup's result nor safe to show read-only
    // (its build outputs must be writable). No run goes on without its dependencies: fail closed.
    const why = (err as Error).message;
    const failure = `its result could not be stored in the dependency cache (${why}), and a half-stored setup is never used: free space for the cache (${deps.cacheDir}) and judge again`;
    return { key: deps.key, hit: false, setup: run, installed: null, overlays: [], lowers: [], failure, evicted: [], storeError: why };
  }
}

/** Why a setup run does not count as done (the same words as a per-run setup), or null. */
export function setupFailure(run: RunResult, timeoutSeconds: number): string | null {
  if (run.timedOut) return `setup timed out after ${timeoutSeconds} s`;
  if (run.violation !== null) return run.violation;
  if (run.exitCode !== 0) return `setup exited with ${run.signal !== null ? `signal ${run.signal}` : `code ${run.exitCode ?? "unknown"}`}`;
  return null;
}
