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
// a run whose flags differ (-race, CGO_ENABLED=0) just misses and builds what it needs. Two facts of
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
import { listTree } from "./capture.js";

/** 2100-01-01T00:00:00Z: the date of the layer's files (see above). */
export const FUTURE = new Date(4_102_444_800_000);
/** How long the gate lets one build of the standard library take, and waits for another's. */
export const BUILD_TIMEOUT_MS = 30 * 60 * 1000;

/** What decides which layer a toolchain gets: its version, target, CGO setting and C compiler. */
const ENV_VARS = ["GOVERSION", "GOROOT", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "GOEXPERIMENT", "GOFLAGS", "CGO_ENABLED", "CC", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_LDFLAGS"];

// A module of one package whose test imports every public package of the standard library, built as
// `go test` builds: every package compiled, and the facts `go vet` (which `go test` runs) needs of
// each, under go test's own vet flags.
const BUILD_COMMAND = [
  `export ${GO_ENV} GOPROXY=off`,
  "printf 'module ranex.invalid/std\\n' > go.mod",
  "echo 'package std' > std.go",
  "{ echo 'package std'; go list -e -f '{{if not .Error}}{{.ImportPath}}{{end}}' std | grep -v -E '(^|/)internal(/|$)|^vendor/' | sed 's/.*/import _ \"&\"/'; } > std_test.go",
  "go test -count=1 -run '^$' .",
].join(" && ");

export interface GoStdLayers {
  /** Lower layers for every tree, topmost first, above the setup's warm layer: this judgment's `trim.txt`. */
  above: string[];
  /** Below the setup's warm layer: the standard library's build, when there is one. */
  below: string[];
  /** Tree paths of the files `below` holds: a setup's copies of them are never stored. */
  shared: ReadonlySet<string>;
  /** The gate's build of the layer in this judgment (null: it was there, or could not be built). */
  built: RunResult | null;
  /** Why there is no standard-library layer (the runs then compile it themselves), or null. */
  missing: string | null;
}

export const NO_GATE_LAYERS: GoStdLayers = { above: [], below: [], shared: new Set(), built: null, missing: null };

/**
 * The layers for this judgment: the stamp always, the standard library's build once per toolchain.
 * Never throws: without the layer the setup and the runs compile the standard library themselves.
 */
export async function prepareGoStd(sandbox: Sandbox, cacheDir: string, scratchDir: string): Promise<GoStdLayers> {
  try {
    return await layersFor(sandbox, cacheDir, scratchDir);
  } catch (err) {
    return { ...NO_GATE_LAYERS, missing: `the Go standard library's layer could not be prepared: ${(err as Error).message}` };
  }
}

/** A layer holding only `trim.txt` with the time now, laid out as the tree (see above): Go does not trim beneath it for a day. */
export async function trimStamp(dir: string): Promise<string> {
  await mkdir(join(dir, GO_BUILD_DIR), { recursive: true });
  await writeFile(join(dir, GO_BUILD_DIR, "trim.txt"), String(Math.floor(Date.now() / 1000)));
  return dir;
}

async function layersFor(sandbox: Sandbox, cacheDir: string, scratchDir: string): Promise<GoStdLayers> {
  const stamp = await trimStamp(join(scratchDir, "go-stamp"));
  const none = (missing: string, built: RunResult | null = null): GoStdLayers => ({ above: [stamp], below: [], shared: new Set(), built, missing });

  const toolchain = await goEnv(sandbox, join(scratchDir, "go-env"));
  if ("error" in toolchain) return none(toolchain.error);
  const key = sha256Hex(canonicalJson({ env: toolchain.env, layout: 1 }));
  const dir = join(cacheDir, key);
  let built: RunResult | null = null;
  if (!(await isLayer(dir))) {
    const made = await buildOnce(sandbox, cacheDir, key, toolchain.env, join(scratchDir, "go-std-build"));
    built = made.run;
    if (made.error !== null) return none(made.error, built);
  }
  const manifest = await readManifest(dir);
  if (manifest === null) return none(`the Go standard library's layer ${dir} has no readable manifest`, built);
  return { above: [stamp], below: [join(dir, "layer")], shared: new Set(Object.keys(manifest.files)), built, missing: null };
}

/** What `<cacheDir>/<key>/manifest.json` says: the toolchain, and every file of `layer/` with its sha256 (to check it by). */
export interface GoStdManifest {
  toolchain: Record<string, string>;
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

/** `go env` in the sandbox the runs use, with their Go environment: which toolchain they get. */
async function goEnv(sandbox: Sandbox, workdir: string): Promise<{ env: Record<string, string> } | { error: string }> {
  await mkdir(workdir, { recursive: true });
  try {
    const run = await sandbox.run({ command: `${GO_ENV} go env -json ${ENV_VARS.join(" ")}`, workdir, env: {}, timeoutMs: 60_000, network: false });
    if (run.exitCode !== 0) return { error: `go env failed: ${run.violation ?? run.outputTail.trim().split("\n").pop() ?? `exit ${run.exitCode ?? "unknown"}`}` };
    const parsed = JSON.parse(run.outputTail.slice(run.outputTail.indexOf("{"))) as Record<string, unknown>;
    return { env: Object.fromEntries(ENV_VARS.map((name) => [name, typeof parsed[name] === "string" ? parsed[name] : ""])) };
  } catch (err) {
    return { error: `go env could not be read: ${(err as Error).message}` };
  } finally {
    releaseTree(workdir);
    await rm(workdir, { recursive: true, force: true });
  }
}

/**
 * Builds the layer for `key` unless another judgment is building it (then waits for that one). The
 * lock is a folder made atomically, naming its holder; a holder that died or overran is taken over.
 */
async function buildOnce(sandbox: Sandbox, cacheDir: string, key: string, env: Record<string, string>, workdir: string): Promise<{ run: RunResult | null; error: string | null }> {
  await mkdir(cacheDir, { recursive: true });
  const lock = join(cacheDir, `.building-${key}`);
  const waitUntil = Date.now() + BUILD_TIMEOUT_MS;
  for (;;) {
    if (await isLayer(join(cacheDir, key))) return { run: null, error: null };
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
    return await build(sandbox, cacheDir, key, env, workdir);
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

async function build(sandbox: Sandbox, cacheDir: string, key: string, env: Record<string, string>, workdir: string): Promise<{ run: RunResult | null; error: string | null }> {
  await rm(workdir, { recursive: true, force: true });
  await mkdir(workdir, { recursive: true });
  const temp = join(cacheDir, `.incoming-${randomBytes(6).toString("hex")}`);
  try {
    const run = await sandbox.run({ command: BUILD_COMMAND, workdir, env: {}, timeoutMs: BUILD_TIMEOUT_MS, network: false });
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
    const manifest: GoStdManifest = { toolchain: env, built: new Date().toISOString(), ms: run.durationMs, files };
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
