// FIFOs for the records' pipes (./pipe.ts), made ahead of need. Node cannot make a FIFO itself, and
// a `mkfifo` process per run was a fixed cost of every recorded run (a process start: about 0.1 s on
// the loaded shared machine the bench ran on, a few percent of a small suite). One `mkfifo` makes a
// batch in a private folder (0700) beside the runs' gate folders; a run takes one by renaming it into
// its own gate folder (the same file system), and the next batch is made while the runs go on. Each
// FIFO is made with mode 0600, as one made for the run itself would be; ./pipe.ts opens it and only
// then gives it the mode the run sees. Anything unexpected (another file system, a folder removed
// under the pool) falls back to one `mkfifo` for that run alone.
import { execFile } from "node:child_process";
import { mkdtemp, rename } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** How many FIFOs one `mkfifo` makes: the main runs of a judgment (base, head, the PR's own) and a spare. */
const BATCH = 4;

interface Pool {
  dir: Promise<string>;
  ready: string[];
  filling: Promise<void> | null;
  made: number;
}

/** One pool per folder the gate folders are made in (a judgment's scratch folder). */
const pools = new Map<string, Pool>();

function poolFor(parent: string): Pool {
  let pool = pools.get(parent);
  if (pool === undefined) {
    const dir = mkdtemp(join(parent, ".ranex-fifos-"));
    dir.catch(() => undefined);
    pool = { dir, ready: [], filling: null, made: 0 };
    pools.set(parent, pool);
  }
  return pool;
}

function fill(pool: Pool): Promise<void> {
  if (pool.filling !== null) return pool.filling;
  pool.filling = (async () => {
    const dir = await pool.dir;
    const names = Array.from({ length: BATCH }, () => join(dir, `fifo-${pool.made++}`));
    await run("/usr/bin/mkfifo", ["-m", "600", ...names]);
    pool.ready.push(...names);
  })().catch(() => undefined).finally(() => {
    pool.filling = null;
  });
  return pool.filling;
}

/**
 * Starts making FIFOs for gate folders that will be made in `parent`, without waiting: a judgment
 * calls it when it starts, so its first run finds one ready.
 */
export function prepareFifos(parent: string): void {
  void fill(poolFor(parent));
}

/** Makes a FIFO (mode 0600) at `path`, whose folder lies in `parent`. */
export async function makeFifo(path: string, parent: string): Promise<void> {
  const pool = poolFor(parent);
  if (pool.ready.length === 0) await fill(pool);
  const taken = pool.ready.shift();
  if (pool.ready.length === 0) void fill(pool);
  if (taken !== undefined) {
    try {
      await rename(taken, path);
      return;
    } catch {
      pools.delete(parent);
    }
  }
  await run("/usr/bin/mkfifo", ["-m", "600", path]);
}
