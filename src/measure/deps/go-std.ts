// Go's standard library, compiled once per toolchain by the gate itself (issue 22). Without it every
// new dependency key (every new go.sum) paid a cold build of the standard library in its setup:
// minutes of a loaded 2-core machine. The gate builds it in the sandbox the runs use (same go, same
// environment, same C compiler, network off), in an empty folder that holds no repository's code,
// and keeps it under `<data dir>/cache/go-std/<toolchain>/`: a lower layer of every tree that uses
// the gate's build cache (`.ranex-warm/go-build`), beneath the setup's own warm layer. A tree writes
// over it copy-on-write into its own bounded layer (src/sandbox/tree-limit.ts), so no setup or run of
// any repository can change what the next repository builds from; and what a setup left under the
// names this layer holds is never stored with its dependency key (./cache.ts, `skip`).
//
// Go keys every cache entry on everything it was built from (the compiler, its flags, GOOS/GOARCH,
// CGO and the C compiler, the sources), so the layer saves compiling and never decides an outcome:
// a run whose flags differ just misses and builds what it needs. So a layer is built per toolchain
// and per set of flags the policy's `go test`s use that change the standard library's build (-race,
// CGO_ENABLED=0, tags: src/runners/go-flags.ts); flags the gate does not reproduce are named in the
// setup line. `go env` is remembered per toolchain (./go-env.ts); a failed build is remembered per
// key for RANEX_GO_STD_RETRY_MINUTES, and at most RANEX_GO_STD_KEEP layers are kept
// (./go-std-store.ts). Two facts of
// Go's cache are handled here. It trims entries unused for five days once a day, going by `trim.txt`
// and the entries' mtimes, and it marks an entry used by setting its mtime when that is more than an
// hour old. So the layer's files are dated in the future (FUTURE: never trimmed, never touched, never
// copied up just to be dated), and every judgment puts a `trim.txt` of its own above all the layers
// (`stamp`), so no run trims the setup's warm layer, which is dated 2000 for cargo's sake.
import { createHash, randomBytes } from "node:crypto";
import { cp, lstat, lutimes, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { canonicalJson, sha256Hex } from "../../kernel/index.js";
import type { Sandbox } from "../../sandbox/index.js";
import { releaseTree } from "../../sandbox/tree-limit.js";
import type { RunResult } from "../../sandbox/types.js";
import { GO_BUILD_DIR, GO_ENV } from "../../runners/go.js";
import { goBuildFlags, type GoBuildFlags } from "../../runners/go-flags.js";
import { listTree } from "./capture.js";
import { goEnv } from "./go-env.js";
import { evictLayers, failureText, forgetFailure, markUsed, recentFailure, rememberFailure } from "./go-std-store.js";

/** 2100-01-01T00:00:00Z: the date of the layer's files (see above). */
export const FUTURE = new Date(4_102_444_800_000);
/** How long the gate lets one build of the standard library take, and waits for another's. */
export const BUILD_TIMEOUT_MS = 30 * 60 * 1000;

// A module of one package whose test imports every public package of the standard library, built as
// `go test` builds (with the flags of the layer): every package compiled, and the facts `go vet`
// (which `go test` runs) needs of each, under go test's own vet flags.
export function buildCommand(flags: Pick<GoBuildFlags, "args" | "env">): string {
  const env = flags.env.length === 0 ? "" : ` ${flags.env.join(" ")}`;
  const args = flags.args.map((a) => ` '${a}'`).join("");
  return [
    `export ${GO_ENV} GOPROXY=off${env}`,
    "printf 'module ranex.invalid/std\\n' > go.mod",
    "echo 'package std' > std.go",
    "{ echo 'package std'; go list -e -f '{{if not .Error}}{{.ImportPath}}{{end}}' std | grep -v -E '(^|/)internal(/|$)|^vendor/' | sed 's/.*/import _ \"&\"/'; } > std_test.go",
    `go test${args} -count=1 -run '^$' .`,
  ].join(" && ");
}

export interface GoStdLayers {
  /** Lower layers for every tree, topmost first, above the setup's warm layer: this judgment's `trim.txt`. */
  above: string[];
  /** Below the setup's warm layer: the standard library's builds, one per flag set the commands use. */
  below: string[];
  /** Tree paths of the files `below` holds: a setup's copies of them are never stored. */
  shared: ReadonlySet<string>;
  /** The gate's build of a layer in this judgment (null: they were there, or could not be built). */
  built: RunResult | null;
  /** Why a layer the commands need is missing (the runs then compile it themselves), or null. */
  missing: string | null;
  /** What the setup line says of the standard library: which layers, built now or kept, and any that is missing or does not apply. */
  note: string | null;
}

export const NO_GATE_LAYERS: GoStdLayers = { above: [], below: [], shared: new Set(), built: null, missing: null, note: null };

export interface GoStdOptions {
  cacheDir: string;
  scratchDir: string;
  /** The policy's setup and test command: the layers are built for the flags their `go test`s use. */
  commands: readonly (string | undefined)[];
  /** How long a failed build is believed (RANEX_GO_STD_RETRY_MINUTES). */
  retryMs: number;
  /** How many layers are kept (RANEX_GO_STD_KEEP). */
  keep: number;
}

/**
 * The layers for this judgment: the stamp always, the standard library's build once per toolchain
 * and flag set. Never throws: without a layer the setup and the runs compile what they need themselves.
 */
export async function prepareGoStd(sandbox: Sandbox, options: GoStdOptions): Promise<GoStdLayers> {
  try {
    return await layersFor(sandbox, options);
  } catch (err) {
    const missing = `the Go standard library's layer could not be prepared: ${(err as Error).message}`;
    return { ...NO_GATE_LAYERS, missing, note: `Go standard library compiled by the runs: ${missing}` };
  }
}

/** A layer holding only `trim.txt` with the time now, laid out as the tree (see above): Go does not trim beneath it for a day. */
export async function trimStamp(dir: string): Promise<string> {
  await mkdir(join(dir, GO_BUILD_DIR), { recursive: true });
  await writeFile(join(dir, GO_BUILD_DIR, "trim.txt"), String(Math.floor(Date.now() / 1000)));
  return dir;
}

/** The flag sets' names as the setup line shows them. */
const named = (flags: Pick<GoBuildFlags, "args" | "env">): string => (flags.args.length + flags.env.length === 0 ? "default flags" : [...flags.env, ...flags.args].join(" "));

async function layersFor(sandbox: Sandbox, options: GoStdOptions): Promise<GoStdLayers> {
  const { cacheDir, scratchDir } = options;
  const stamp = await trimStamp(join(scratchDir, "go-stamp"));
  const sets = goBuildFlags(options.commands);
  if (sets.length === 0) sets.push({ args: [], env: [], unsupported: [] });
  const below: string[] = [];
  const shared = new Set<string>();
  const notes: string[] = [];
  const used = new Set<string>();
  let built: RunResult | null = null;
  let missing: string | null = null;
  for (const [i, flags] of sets.entries()) {
    const made = await layerFor(sandbox, options, flags, join(scratchDir, `go-std-${i}`));
    built ??= made.built;
    if ("error" in made) {
      missing ??= made.error;
      notes.push(`compiled by the runs for ${named(flags)}: ${made.error}`);
      continue;
    }
    used.add(made.key);
    below.push(made.layer);
    for (const path of made.files) shared.add(path);
    const how = made.built === null ? "from the gate's layer" : `built by the gate in ${(made.built.durationMs / 1000).toFixed(1)} s`;
    notes.push(`${how} for ${named(flags)} (${made.key.slice(0, 12)}${made.envCached ? ", go env remembered" : ""})`);
    if (flags.unsupported.length > 0) notes.push(`not built for ${flags.unsupported.join(" ")}: the runs compile what those flags change`);
  }
  const evicted = used.size === 0 ? [] : await evictLayers(cacheDir, options.keep, used);
  if (evicted.length > 0) notes.push(`${evicted.length} unused layer${evicted.length === 1 ? "" : "s"} removed (RANEX_GO_STD_KEEP=${options.keep})`);
  return { above: [stamp], below, shared, built, missing, note: `Go standard library ${notes.join("; ")}` };
}

type LayerMade = { key: string; layer: string; files: string[]; built: RunResult | null; envCached: boolean } | { error: string; built: RunResult | null };

async function layerFor(sandbox: Sandbox, options: GoStdOptions, flags: GoBuildFlags, scratch: string): Promise<LayerMade> {
  const { cacheDir } = options;
  const toolchain = await goEnv(sandbox, cacheDir, join(scratch, "env"), flags.env);
  if ("error" in toolchain) return { error: toolchain.error, built: null };
  // The default flag set keeps the key it always had, so layers built before flag sets stay in use.
  const key = sha256Hex(canonicalJson({ env: toolchain.env, layout: 1, ...(flags.args.length + flags.env.length === 0 ? {} : { flags: { args: flags.args, env: flags.env } }) }));
  const dir = join(cacheDir, key);
  let built: RunResult | null = null;
  if (!(await isLayer(dir))) {
    const made = await buildOnce(sandbox, options, key, toolchain.env, flags, join(scratch, "build"));
    built = made.run;
    if (made.error !== null) return { error: made.error, built };
  }
  const manifest = await readManifest(dir);
  if (manifest === null) return { error: `the Go standard library's layer ${dir} has no readable manifest`, built };
  await markUsed(cacheDir, key);
  return { key, layer: join(dir, "layer"), files: Object.keys(manifest.files), built, envCached: toolchain.cached };
}

/** What `<cacheDir>/<key>/manifest.json` says: the toolchain, and every file of `layer/` with its sha256 (to check it by). */
export interface GoStdManifest {
  toolchain: Record<string, string>;
  /** The flag set it was built for (absent: the default, from a gate before flag sets). */
  flags?: { args: string[]; env: string[] };
  built: string;
  ms: number;
  files: Record<string, string>;
}

export async function readManifest(dir: string): Promise<GoStdManifest | null> {
  try {
    const manifest = JSON.parse(await readFile(join(dir, "manifest.json"), "utf8")) as GoStdManifest;
    return typeof manifest.files === "object" && manifest.files !== null ? manifest : null;
  } catch {
    return null;
  }
}

const isLayer = async (dir: string): Promise<boolean> => (await readManifest(dir)) !== null;

/**
 * Builds the layer for `key` unless another judgment is building it (then waits for that one). The
 * lock is a folder made atomically, naming its holder; a holder that died or overran is taken over.
 */
async function buildOnce(
  sandbox: Sandbox, options: GoStdOptions, key: string, env: Record<string, string>, flags: GoBuildFlags, workdir: string,
): Promise<{ run: RunResult | null; error: string | null }> {
  const { cacheDir, retryMs } = options;
  await mkdir(cacheDir, { recursive: true });
  // A build that failed is not tried again by every judgment (each would pay it in full): only after
  // retryMs, or with another toolchain (another key). Checked again after waiting for a builder.
  const failed = async (): Promise<string | null> => {
    const failure = await recentFailure(cacheDir, key, retryMs);
    return failure === null ? null : failureText(failure, retryMs);
  };
  const lock = join(cacheDir, `.building-${key}`);
  const waitUntil = Date.now() + BUILD_TIMEOUT_MS;
  for (;;) {
    if (await isLayer(join(cacheDir, key))) return { run: null, error: null };
    const known = await failed();
    if (known !== null) return { run: null, error: known };
    const taken = await mkdir(lock).then(() => true, () => false);
    if (taken) break;
    if (!(await holderAlive(lock)) || Date.now() > waitUntil) {
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  try {
    await writeFile(join(lock, "holder"), JSON.stringify({ pid: process.pid, since: Date.now() }));
    const made = await build(sandbox, cacheDir, key, env, flags, workdir);
    if (made.error !== null) await rememberFailure(cacheDir, key, made.error);
    else await forgetFailure(cacheDir, key);
    return made;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function holderAlive(lock: string): Promise<boolean> {
  try {
    const holder = JSON.parse(await readFile(join(lock, "holder"), "utf8")) as { pid: number; since: number };
    if (Date.now() - holder.since > BUILD_TIMEOUT_MS) return false;
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EPERM") return true;
    if (code === "ESRCH") return false;
    // No holder named yet (being written), unless the lock is older than a minute (its maker died).
    const made = await lstat(lock).catch(() => null);
    return made !== null && Date.now() - made.mtimeMs < 60_000;
  }
}

async function build(
  sandbox: Sandbox, cacheDir: string, key: string, env: Record<string, string>, flags: GoBuildFlags, workdir: string,
): Promise<{ run: RunResult | null; error: string | null }> {
  await rm(workdir, { recursive: true, force: true });
  await mkdir(workdir, { recursive: true });
  const temp = join(cacheDir, `.incoming-${randomBytes(6).toString("hex")}`);
  try {
    const run = await sandbox.run({ command: buildCommand(flags), workdir, env: {}, timeoutMs: BUILD_TIMEOUT_MS, network: false });
    if (run.exitCode !== 0) {
      const why = run.timedOut ? "timed out" : run.violation ?? run.outputTail.trim().split("\n").slice(-3).join(" / ");
      return { run, error: `the gate's build of the Go standard library failed: ${why}` };
    }
    // The tree is seen through its bounded overlay until it is released: copy what the build wrote.
    const layer = join(temp, "layer", GO_BUILD_DIR);
    await cp(join(workdir, GO_BUILD_DIR), layer, { recursive: true, verbatimSymlinks: true });
    // Every judgment brings its own (see above).
    await rm(join(layer, "trim.txt"), { force: true });
    await dateAll(join(temp, "layer"));
    const files: Record<string, string> = {};
    for (const path of [...await listTree(join(temp, "layer"))].sort()) {
      const file = join(temp, "layer", path);
      if ((await lstat(file)).isFile()) files[path] = createHash("sha256").update(await readFile(file)).digest("hex");
    }
    const manifest: GoStdManifest = { toolchain: env, flags: { args: flags.args, env: flags.env }, built: new Date().toISOString(), ms: run.durationMs, files };
    await writeFile(join(temp, "manifest.json"), JSON.stringify(manifest));
    // Under the lock: what is there has no readable manifest (a layout of an older gate), so no run uses it.
    await rm(join(cacheDir, key), { recursive: true, force: true });
    await rename(temp, join(cacheDir, key));
    return { run, error: null };
  } finally {
    releaseTree(workdir);
    await rm(workdir, { recursive: true, force: true });
    await rm(temp, { recursive: true, force: true });
  }
}

async function dateAll(path: string): Promise<void> {
  const info = await lstat(path);
  if (info.isDirectory()) for (const name of await readdir(path)) await dateAll(join(path, name));
  await lutimes(path, FUTURE, FUTURE);
}
