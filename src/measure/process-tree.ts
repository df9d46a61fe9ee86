// The measuring process and everything it started, read from /proc. Its sandboxes run bwrap with
// `--new-session`, so they leave its process group: killing the group alone leaves bwrap and the
// suite inside to die by `--die-with-parent`, later. An aborted judgment must not return while any
// of them still runs, so the tree is taken before the kill and waited for after it.
import { readdirSync, readFileSync } from "node:fs";

interface ProcessRow { pid: number; ppid: number; pgrp: number; live: boolean }

function processTable(): ProcessRow[] {
  const rows: ProcessRow[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return rows;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the parenthesised command: state, ppid, pgrp, ...
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    rows.push({ pid: Number(name), ppid: Number(rest[1]), pgrp: Number(rest[2]), live: rest[0] !== "Z" && rest[0] !== "X" });
  }
  return rows;
}

/** Every live descendant of `root` and every live member of its process group, `root` included. */
export function processTree(root: number): number[] {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const row of table) children.set(row.ppid, [...children.get(row.ppid) ?? [], row.pid]);
  const found = new Set<number>(table.filter((row) => row.pgrp === root && row.live).map((row) => row.pid));
  const todo = [root];
  while (todo.length > 0) {
    const pid = todo.pop() as number;
    if (found.has(pid) && pid !== root) continue;
    found.add(pid);
    todo.push(...children.get(pid) ?? []);
  }
  const live = new Set(table.filter((row) => row.live).map((row) => row.pid));
  return [...found].filter((pid) => live.has(pid));
}

/** Live members of process group `pgid` (a group id is never reused while a member lives). */
export function groupMembers(pgid: number): number[] {
  return processTable().filter((row) => row.pgrp === pgid && row.live).map((row) => row.pid);
}

/** Those of `pids` still running (zombies cannot run code or hold a file open). */
export function stillLive(pids: readonly number[]): number[] {
  if (pids.length === 0) return [];
  const live = new Set(processTable().filter((row) => row.live).map((row) => row.pid));
  return pids.filter((pid) => live.has(pid));
}

/** SIGKILL to each; one already gone is skipped. */
export function killEach(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
}

/** SIGSTOP to each: a stopped process cannot fork, and SIGKILL still ends it. */
function stopEach(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGSTOP");
    } catch { /* gone */ }
  }
}

/**
 * Ends `root`, its process group and every descendant, and returns them. Frozen first, then killed: a
 * tree read while its processes still run misses what one of them forks after the read, and a child
 * in a group of its own (the sandbox's launcher) forked then outlived the kill, reparented where no
 * later read finds it. So each process found is stopped and the tree read again until a read finds
 * nothing new; only then does SIGKILL go out.
 */
export function killTree(root: number): number[] {
  const found = new Set<number>();
  for (let round = 0; round < 20; round++) {
    const tree = processTree(root).filter((pid) => !found.has(pid));
    if (tree.length === 0 && round > 0) break;
    if (round === 0) stopEach([root]);
    stopEach(tree);
    for (const pid of tree) found.add(pid);
  }
  try {
    process.kill(-root, "SIGKILL");
  } catch { /* no such group */ }
  killEach([...found]);
  return [...found];
}

