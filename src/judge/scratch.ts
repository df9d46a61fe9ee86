// A judgment's scratch folder in the temp dir, named after the process that owns it
// (`ranex-judge-<pid>-XXXXXX`), so that start-up can tell an abandoned folder from one in use: a
// process killed outright (SIGKILL, a lost machine) runs no cleanup, and each interrupted judgment
// used to leave its trees behind (issue 21).
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TREE_PREFIX, unmountUnder } from "../sandbox/tree-limit.js";

const PREFIX = "ranex-judge-";
/** The bounded trees' mounts of a measuring process (src/sandbox/tree-limit.ts), swept the same way. */
const PREFIXES = [PREFIX, TREE_PREFIX];

/** A new scratch folder owned by this process. */
export function judgeScratch(dir: string = tmpdir()): Promise<string> {
  return mkdtemp(join(dir, `${PREFIX}${process.pid}-`));
}

/**
 * Removes every `ranex-judge-<pid>-*` folder in `dir` (and `ranex-tree-<pid>-*` in /tmp too) whose
 * process is gone. Returns the folders removed. Folders of live processes (another worker on this
 * machine, or this one) and folders without an owner in their name are left alone.
 */
export async function removeOrphanedScratch(dir: string = tmpdir(), alive: (pid: number) => boolean = isAlive): Promise<string[]> {
  const removed: string[] = [];
  // The measuring process gets no TMPDIR (its environment is built from empty): its trees are in /tmp.
  for (const [where, name] of await entries([...new Set([dir, "/tmp"])])) {
    if (where !== dir && !name.startsWith(TREE_PREFIX)) continue;
    const prefix = PREFIXES.find((p) => name.startsWith(p));
    if (prefix === undefined) continue;
    const owner = /^(\d+)-/.exec(name.slice(prefix.length));
    // Without an owner in its name, a folder's owner cannot be told: it may be in use, so it stays.
    if (owner === null || alive(Number(owner[1]))) continue;
    // A measurer killed outright left its trees mounted: unmounted first, or nothing could be removed.
    unmountUnder(join(where, name));
    await rm(join(where, name), { recursive: true, force: true, maxRetries: 2 }).then(() => removed.push(name), () => undefined);
  }
  return removed;
}

async function entries(dirs: string[]): Promise<[string, string][]> {
  const found: [string, string][] = [];
  for (const dir of dirs) for (const name of await readdir(dir).catch(() => [] as string[])) found.push([dir, name]);
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, someone else's.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
