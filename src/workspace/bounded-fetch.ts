import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { WorkspaceError } from "./errors.js";
import { runGit, type GitResult } from "./git.js";

// A fetch the pull request chose the size and speed of (a submodule's commit, issue 22): bounded as
// it downloads, not only once its files are counted. git has no client-side limit on what a fetch
// receives, so the objects are made to land in one pack (unpackLimit=1: index-pack writes the
// stream into `objects/pack/tmp_pack_*` as it arrives) and that folder's growth is the byte count;
// past the bound, or past the time, git and its helpers are killed and the partial pack removed.

export interface FetchBound {
  /** Bytes the fetch may add to the repository's packs. */
  maxBytes: number;
  timeoutMs: number;
}

export class FetchLimitError extends WorkspaceError {}

const POLL_MS = 100;

export async function boundedFetch(gitDir: string, args: readonly string[], config: readonly string[], bound: FetchBound): Promise<GitResult> {
  const packs = join(gitDir, "objects", "pack");
  const had = new Set(await readdir(packs).catch(() => [] as string[]));
  const before = await folderBytes(packs);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new FetchLimitError(`the download took longer than ${seconds(bound.timeoutMs)} s`)), bound.timeoutMs);
  let polling = false;
  const poll = setInterval(() => {
    if (polling) return;
    polling = true;
    void folderBytes(packs).then((now) => {
      if (now - before > bound.maxBytes) stop.abort(new FetchLimitError(`the download passed ${mb(now - before)} MB, more than the ${mb(bound.maxBytes)} MB it may take`));
    }).finally(() => { polling = false; });
  }, POLL_MS);
  try {
    const result = await runGit(gitDir, args, { config: [...config, "fetch.unpackLimit=1", "transfer.unpackLimit=1"], signal: stop.signal });
    // A pack that arrived whole between two polls is counted too.
    const grown = (await folderBytes(packs)) - before;
    if (grown > bound.maxBytes) throw new FetchLimitError(`the download took ${mb(grown)} MB, more than the ${mb(bound.maxBytes)} MB it may take`);
    return result;
  } catch (err) {
    await removeNew(packs, had);
    // A git killed mid-fetch never releases its locks: the next fetch of this mirror would fail on them.
    if (stop.signal.aborted) await removeLocks(gitDir);
    throw err;
  } finally {
    clearTimeout(timer);
    clearInterval(poll);
  }
}

/** The lock files a fetch takes (the shallow file, packed refs, any ref): only ever called under the mirror's lock. */
async function removeLocks(gitDir: string): Promise<void> {
  await rm(join(gitDir, "shallow.lock"), { force: true });
  await rm(join(gitDir, "packed-refs.lock"), { force: true });
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (entry.isDirectory()) await walk(join(dir, entry.name));
      else if (entry.name.endsWith(".lock")) await rm(join(dir, entry.name), { force: true });
    }
  };
  await walk(join(gitDir, "refs"));
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) total += (await stat(join(dir, name)).catch(() => null))?.size ?? 0;
  return total;
}

/**
 * What a stopped fetch left: its temporary pack, or a pack it finished over the bound. Removed, so
 * its objects are not found later as if they had been fetched within the bound (the caller's ref
 * to them goes too).
 */
async function removeNew(dir: string, had: ReadonlySet<string>): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!had.has(name)) await rm(join(dir, name), { force: true });
  }
}

const seconds = (ms: number): string => (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
const mb = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(1);
