import { createHash } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { WorkspaceError } from "./errors.js";
import { lastLine, runGit } from "./git.js";

// The per-repository bare mirror: created on first use, fetched on every open. Fetches name the
// source and refspecs on the command line, so no remote (and no credential) is written to config.

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
const SCP_LIKE = /^[^/\s]+@[^/\s:]+:/;
/** `transport::address` names a remote helper; git decides (and protocol.allow refuses ext::). */
const HELPER_LIKE = /^[a-z][a-z0-9+.-]*::/i;

/** What git is asked to fetch from: URLs as given, local paths made absolute. */
export function fetchLocation(source: string): string {
  if (URL_LIKE.test(source) || SCP_LIKE.test(source) || HELPER_LIKE.test(source)) return source;
  return resolve(source);
}

/** The mirror's folder under `dataDir/<folder>` (submodules keep theirs apart: shallow, one commit each). */
export function mirrorDirFor(source: string, dataDir: string, folder = "mirrors"): string {
  const location = fetchLocation(source);
  const digest = createHash("sha256").update(location).digest("hex").slice(0, 16);
  // "https://host/org/app.git", "/src/app/.git" and "/src/app/" all name the mirror "app".
  const path = location.replace(/[?#].*$/, "").replace(/\/+$/, "").replace(/\/\.git$/, "");
  const name = basename(path).replace(/\.git$/, "").replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "").slice(0, 40);
  return join(dataDir, folder, `${digest}-${name || "repo"}.git`);
}

// In-process serialisation per mirror; across processes, git's own ref locks plus retries suffice.
const locks = new Map<string, Promise<unknown>>();

export function withMirrorLock<T>(mirrorDir: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(mirrorDir) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(fn);
  const settled = run.catch(() => undefined);
  locks.set(mirrorDir, settled);
  void settled.then(() => {
    if (locks.get(mirrorDir) === settled) locks.delete(mirrorDir);
  });
  return run;
}

/**
 * Creates the bare mirror if it is missing. Judges in other processes may share the data dir, and
 * `git init` writes HEAD before the rest of the repository: a second process that saw HEAD and fetched
 * at once met "not a git repository". So the mirror is built in a folder of its own and renamed into
 * place whole; whoever renames second finds the place taken and uses the winner's.
 */
export async function ensureMirror(mirrorDir: string): Promise<void> {
  if (existsSync(join(mirrorDir, "HEAD"))) return;
  await mkdir(dirname(mirrorDir), { recursive: true });
  const building = await mkdtemp(`${mirrorDir}.new-`);
  try {
    const result = await runGit(building, ["init", "--bare", "--quiet", building]);
    if (result.code !== 0) throw new WorkspaceError(`cannot create the mirror ${mirrorDir}: ${lastLine(result.stderr)}`);
    try {
      await rename(building, mirrorDir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== "ENOTEMPTY" && code !== "EEXIST") || !existsSync(join(mirrorDir, "HEAD"))) {
        throw new WorkspaceError(`cannot create the mirror ${mirrorDir}: ${(err as Error).message}`);
      }
    }
  } finally {
    await rm(building, { recursive: true, force: true });
  }
}

export interface FetchOptions {
  gitConfig?: readonly string[];
}

const REF_PATTERN = /^refs\/[A-Za-z0-9._\-/]+$/;

export function assertSafeRef(ref: string): void {
  if (!REF_PATTERN.test(ref) || ref.includes("..") || ref.endsWith("/") || ref.endsWith(".lock")) {
    throw new WorkspaceError(`not a ref that can be fetched: ${JSON.stringify(ref)}`);
  }
}

/** Fetches the given refspecs from the source into the mirror, retrying lock races a few times. */
export async function fetchInto(mirrorDir: string, source: string, refspecs: readonly string[], options: FetchOptions = {}): Promise<void> {
  const location = fetchLocation(source);
  if (location === resolve(source) && !existsSync(location)) {
    throw new WorkspaceError(`cannot read repository ${source}: no such directory`);
  }
  if (location === resolve(source) && !statSync(location).isDirectory()) {
    throw new WorkspaceError(`cannot read repository ${source}: not a directory`);
  }
  const args = ["fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", "--force", "--prune", "--", location, ...refspecs];
  for (let attempt = 0; ; attempt++) {
    const result = await runGit(mirrorDir, args, { config: options.gitConfig ?? [] });
    if (result.code === 0) return;
    const message = lastLine(result.stderr);
    if (attempt < 3 && /lock|unable to create/i.test(message)) {
      await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
      continue;
    }
    throw new WorkspaceError(`cannot read repository ${source}: ${explain(message)}`);
  }
}

function explain(message: string): string {
  if (/does not appear to be a git repository|not a git repository/i.test(message)) return "not a git repository";
  return message;
}
