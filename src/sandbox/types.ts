// The isolated runner's interface. Untrusted code (setup, tests, checks) runs only behind it.

export type SandboxBackend = "bwrap" | "none";

/** How a run is contained. Its digest is part of the subject, so evidence names the profile it ran under. */
export interface SandboxProfile {
  backend: SandboxBackend;
  /** Extra host paths mounted read-only (toolchains outside /usr). */
  readonly: string[];
  /**
   * Host directories mounted read-only at another path inside (the gate's own report writers),
   * so that where the gate is installed never collides with the sandbox's /work.
   */
  mounts?: { host: string; sandbox: string }[];
  /** Directories put first on PATH (the policy's `toolchain.path`), each mounted read-only. */
  toolchain?: string[];
  memoryBytes: number;
  maxProcesses: number;
  /** Output kept per run: the tail, the rest is counted. */
  outputLimitBytes: number;
  /**
   * Size of the run's private scratch (`/tmp`, which holds HOME and TMPDIR), a tmpfs of its own per
   * run: one run can neither fill nor read another's. Default DEFAULT_SCRATCH_BYTES.
   */
  scratchBytes?: number;
  /**
   * Bytes a run's tree (/work) may take on top of what was checked out, across its runs: its writes
   * go to a tmpfs of this size under an overlay (./tree-limit.ts). Default: TREE_FACTOR times the
   * tree's size, at least TREE_FLOOR_BYTES (backend bwrap only).
   */
  treeBytes?: number;
}

export const DEFAULT_SCRATCH_BYTES = 512 * 1024 * 1024;

export interface RunRequest {
  /** Run with `/bin/sh -c` inside the sandbox, in `/work`. */
  command: string;
  /** Host directory mounted read-write at `/work` (a scratch copy of the materialised tree). */
  workdir: string;
  /** Host directory mounted read-write at the same path inside (e.g. where the JUnit report goes). */
  outdir?: string;
  /** Variables added to the empty environment (RANEX_JUNIT, ...). PATH, HOME, CI are set by the runner. */
  env: Record<string, string>;
  timeoutMs: number;
  /** Only `setup` may get it, and only when the policy says so. */
  network: boolean;
  /**
   * Paths relative to `workdir` that stay read-only inside the run (frozen tests, harness, policy):
   * writes, deletes and renames of them fail. Each must be a regular file reached without a symlink
   * when the run starts, or the run is refused (a violation saying which path and why).
   */
  readonlyPaths?: string[];
  /** Host files or directories mounted read-only for this run only (the canary), not part of the profile. */
  extraMounts?: { host: string; sandbox: string }[];
  /**
   * Host files or directories shown read-only at `/work/<path>`, over the tree: the dependencies a
   * once-only setup installed (src/measure/deps). What the tree had at `path` is replaced; with
   * backend `none` (no mounts) `path` becomes a symbolic link to `host`.
   */
  treeOverlays?: { host: string; path: string }[];
  /**
   * Host directories laid out as the tree (a setup's build outputs, src/measure/deps/cache.ts; the
   * gate's own standard-library build, src/measure/deps/go-std.ts), topmost first, shown beneath the
   * tree as lower layers: the run reads them and writes over them, copy-on-write into the tree's own
   * bounded layer, and the directories themselves never change. Taken at the tree's first run (its
   * layers stay for the tree's later runs); with backend `none` (no mounts) what the tree lacks of
   * them is copied in.
   */
  treeLowers?: readonly string[];
}

export interface RunResult {
  /** Null when the process was killed by a signal or the timeout. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** The last `outputLimitBytes` of stdout and stderr interleaved. */
  outputTail: string;
  outputBytes: number;
  outputTruncated: boolean;
  /** Peak resident memory and CPU time of the run's process tree, when the backend can tell. */
  peakMemoryBytes: number | null;
  cpuMs: number | null;
  /** A containment problem the runner noticed (could not start namespaces, limit hit, ...). */
  violation: string | null;
}
