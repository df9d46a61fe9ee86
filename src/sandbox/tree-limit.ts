// Bounded tree writes (issue 21). A run's tree (/work) is the materialised checkout on the host's
// disk; what a run writes there used to be unbounded (a PR's code wrote 1 GiB and would have gone
// on). The kernel bounds it now: at a tree's first run, an overlay is mounted over the tree's own
// path, its lower layer the checkout and its upper layer a tmpfs of the limit's size, so every write
// (a new file, a copied-up changed file) lands in that tmpfs and fails with ENOSPC past the limit;
// the host's disk is never written. The overlay stays for the tree's later runs (the tests see what
// setup built) and every reader on the host (the dependency capture, the canary, the JUnit read)
// sees the tree as the runs left it. The tmpfs lives under `/tmp/ranex-tree-<pid>-…`; all of it is
// unmounted when the measuring process is done (`releaseTrees`), and by the sweep of
// src/judge/scratch.ts when that process was killed.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statfsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const TREE_PREFIX = "ranex-tree-";
/** The limit when the policy names none: TREE_FACTOR times the tree's size, at least TREE_FLOOR_BYTES. */
export const TREE_FACTOR = 4;
export const TREE_FLOOR_BYTES = 1024 * 1024 * 1024;
/** Free space left in the limit below which a run counts as having written past it. */
const FULL_SLACK_BYTES = 256 * 1024;

interface Bounded {
  root: string;
  upperFs: string;
  merged: string;
  limitBytes: number;
}

const bounded = new Map<string, Bounded>();
let exitHook = false;

/**
 * Bounds `workdir` (once; later calls return the same): the tree to bind at /work, and the limit.
 * `limitBytes` undefined: TREE_FACTOR times the tree's size, at least TREE_FLOOR_BYTES. `lowers`, at
 * the first call only, lie beneath the checkout, topmost first (warm build caches): what the checkout
 * has wins, then the first layer that has a path, and writes to any land in the bounded layer. Throws when the kernel refuses the mounts: the
 * caller fails the run closed.
 */
export function boundTree(workdir: string, limitBytes: number | undefined, lowers: readonly string[] = []): { view: string; limitBytes: number } {
  const key = safeRealpath(workdir);
  const known = bounded.get(key);
  if (known !== undefined) return { view: known.merged, limitBytes: known.limitBytes };
  const limit = limitBytes ?? Math.max(TREE_FLOOR_BYTES, TREE_FACTOR * treeBytes(key));
  const root = mkdtempSync(join(tmpdir(), `${TREE_PREFIX}${process.pid}-`));
  const upperFs = join(root, "limit");
  const merged = key;
  mkdirSync(upperFs);
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${limit},mode=0700`, "ranex-tree", upperFs], { stdio: "pipe" });
    const upper = join(upperFs, "upper");
    mkdirSync(upper);
    mkdirSync(join(upperFs, "work"));
    // The overlay's root takes the upper layer's owner and mode: make them the tree's own.
    const info = statSync(key);
    chownSync(upper, info.uid, info.gid);
    chmodSync(upper, info.mode & 0o7777);
    const lowerdir = [key, ...lowers.map(layerPath)].join(":");
    execFileSync("mount", ["-t", "overlay", "ranex-tree", "-o", `lowerdir=${lowerdir},upperdir=${upper},workdir=${join(upperFs, "work")}`, merged], { stdio: "pipe" });
  } catch (err) {
    unmountUnder(merged);
    unmountUnder(root);
    rmSync(root, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`the run's tree could not be bounded (${stderr !== undefined && stderr !== "" ? stderr : (err as Error).message})`);
  }
  bounded.set(key, { root, upperFs, merged, limitBytes: limit });
  if (!exitHook) {
    exitHook = true;
    process.once("exit", releaseTrees);
  }
  return { view: merged, limitBytes: limit };
}

/** A lower layer's path as the overlay's options take it: one that would split them is refused. */
function layerPath(path: string): string {
  const real = realpathSync(path);
  if (/[:,\\\n]/.test(real)) throw new Error(`the warm build layer's path ${JSON.stringify(real)} cannot be given to overlayfs`);
  return real;
}

/** Why the run is unsafe when the tree's limit is (all but) used up, or null. */
export function treeLimitProblem(workdir: string): string | null {
  const entry = bounded.get(safeRealpath(workdir));
  if (entry === undefined) return null;
  const fs = statfsSync(entry.upperFs);
  if (fs.bavail * fs.bsize > FULL_SLACK_BYTES) return null;
  return `wrote more than ${Math.round(entry.limitBytes / (1024 * 1024))} MB into the tree (the limit, sandbox.tree_mb)`;
}

/** Unmounts and removes every tree this process bounded. */
export function releaseTrees(): void {
  for (const key of [...bounded.keys()]) releaseTree(key);
}

/** Unmounts one tree (before its folder is removed): what the runs wrote there is gone. */
export function releaseTree(workdir: string): void {
  const key = safeRealpath(workdir);
  const entry = bounded.get(key);
  if (entry === undefined) return;
  unmountUnder(entry.merged);
  unmountUnder(entry.root);
  rmSync(entry.root, { recursive: true, force: true });
  bounded.delete(key);
}

/** Lazily unmounts every mount at or below `dir`, deepest first (a crashed process's trees too). */
export function unmountUnder(dir: string): void {
  let text: string;
  try {
    text = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return;
  }
  const points = text.split("\n").map((line) => unescapeMount(line.split(" ")[4] ?? ""))
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of points) {
    try {
      execFileSync("umount", ["-l", point], { stdio: "ignore" });
    } catch { /* gone already */ }
  }
}

function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Bytes of the tree's regular files (links not followed). */
function treeBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const info = lstatSync(path);
    if (info.isDirectory()) total += treeBytes(path);
    else if (info.isFile()) total += info.size;
  }
  return total;
}
