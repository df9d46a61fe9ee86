// A judgment's scratch folder in the temp dir, named after the process that owns it
// (`ranex-judge-<pid>-XXXXXX`), so that start-up can tell an abandoned folder from one in use: a
// process killed outright (SIGKILL, a lost machine) runs no cleanup, and each interrupted judgment
// used to leave its trees behind (issue 21).
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "ranex-judge-";

/** A new scratch folder owned by this process. */
export function judgeScratch(dir: string = tmpdir()): Promise<string> {
  return mkdtemp(join(dir, `${PREFIX}${process.pid}-`));
}

/**
 * Removes every `ranex-judge-*` folder in `dir` no live process owns: its owner's pid is gone, or it
 * predates owners in names. Returns the folders removed. Folders of live processes (another worker
 * on this machine, or this one) are left alone.
 */
export async function removeOrphanedScratch(dir: string = tmpdir(), alive: (pid: number) => boolean = isAlive): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(PREFIX)) continue;
    const owner = /^(\d+)-/.exec(name.slice(PREFIX.length));
    if (owner !== null && alive(Number(owner[1]))) continue;
    await rm(join(dir, name), { recursive: true, force: true, maxRetries: 2 }).then(() => removed.push(name), () => undefined);
  }
  return removed;
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
