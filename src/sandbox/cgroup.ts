import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

// Memory and process-count limits through cgroup v1 (writable on the machines we run on). Each run
// gets its own child group of the controllers' current group (nested under ours, so a limit placed
// on this service by its host still applies to what it runs). The group is also how we count peak
// memory and CPU time, and how we find and kill any process that outlived the run.

const CGROUP_ROOT = "/sys/fs/cgroup";
const CONTROLLERS = ["pids", "memory", "cpuacct"] as const;
type Controller = (typeof CONTROLLERS)[number];

export interface RunCgroup {
  /** `cgroup.procs` files a process must join, one per controller. */
  procsFiles: string[];
  readStats(): { peakMemoryBytes: number | null; cpuMs: number | null; pidsLimitHit: boolean; memoryLimitHit: boolean };
  /** Pids still in the group (host pid namespace). */
  members(): number[];
  /** Kill every member until none is left, then remove the group. Never throws. */
  destroy(): Promise<void>;
}

/** The group this process sits in for one v1 controller, from /proc/self/cgroup. */
function currentGroup(controller: Controller): string | null {
  let text: string;
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return null;
  }
  for (const line of text.split("\n")) {
    const [, list, path] = line.split(":");
    if (list !== undefined && path !== undefined && list.split(",").includes(controller)) return path;
  }
  return null;
}

function controllerDir(controller: Controller): string | null {
  const group = currentGroup(controller);
  if (group === null) return null;
  const dir = join(CGROUP_ROOT, controller, group);
  return existsSync(join(dir, "cgroup.procs")) ? dir : null;
}

function readNumber(file: string): number | null {
  try {
    const value = Number(readFileSync(file, "utf8").trim());
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/** Whether per-run cgroups can be made here; the reason when not. */
export function cgroupSupport(): { ok: true } | { ok: false; reason: string } {
  for (const controller of CONTROLLERS) {
    const dir = controllerDir(controller);
    if (dir === null) return { ok: false, reason: `cgroup v1 controller '${controller}' is not mounted under ${CGROUP_ROOT}` };
    const probe = join(dir, `ranex-probe-${randomBytes(4).toString("hex")}`);
    try {
      mkdirSync(probe);
      rmdirSync(probe);
    } catch (err) {
      return { ok: false, reason: `cannot create a cgroup under ${dir}: ${(err as Error).message}` };
    }
  }
  return { ok: true };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Create the run's groups with the profile's limits. Throws (with the reason) when it cannot. */
export function createRunCgroup(limits: { memoryBytes: number; maxProcesses: number }): RunCgroup {
  sweepOrphanedGroups();
  const name = `ranex-run-${process.pid}-${randomBytes(6).toString("hex")}`;
  const dirs = new Map<Controller, string>();
  try {
    for (const controller of CONTROLLERS) {
      const parent = controllerDir(controller);
      if (parent === null) throw new Error(`cgroup v1 controller '${controller}' is not available`);
      const dir = join(parent, name);
      mkdirSync(dir);
      dirs.set(controller, dir);
    }
    const pids = dirs.get("pids") as string;
    const memory = dirs.get("memory") as string;
    writeFileSync(join(pids, "pids.max"), String(limits.maxProcesses));
    writeFileSync(join(memory, "memory.limit_in_bytes"), String(limits.memoryBytes));
    // Swap would let a run exceed its memory by paging; cap memory+swap too where the kernel has it.
    const memsw = join(memory, "memory.memsw.limit_in_bytes");
    if (existsSync(memsw)) writeFileSync(memsw, String(limits.memoryBytes));
  } catch (err) {
    for (const dir of dirs.values()) tryRmdir(dir);
    throw new Error(`could not set up the run's cgroup limits: ${(err as Error).message}`);
  }
  const pidsDir = dirs.get("pids") as string;
  const memoryDir = dirs.get("memory") as string;
  const cpuDir = dirs.get("cpuacct") as string;

  const members = (): number[] => {
    try {
      return readFileSync(join(pidsDir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };

  return {
    procsFiles: [...dirs.values()].map((dir) => join(dir, "cgroup.procs")),
    readStats() {
      const peak = readNumber(join(memoryDir, "memory.max_usage_in_bytes"));
      const cpuNs = readNumber(join(cpuDir, "cpuacct.usage"));
      let pidsLimitHit = false;
      try {
        pidsLimitHit = /^max\s+([1-9]\d*)/m.test(readFileSync(join(pidsDir, "pids.events"), "utf8"));
      } catch { /* unknown: not reported */ }
      let memoryLimitHit = false;
      try {
        memoryLimitHit = /^oom_kill\s+([1-9]\d*)/m.test(readFileSync(join(memoryDir, "memory.oom_control"), "utf8"));
      } catch { /* unknown: not reported */ }
      return {
        peakMemoryBytes: peak === null || peak === 0 ? null : peak,
        cpuMs: cpuNs === null ? null : Math.round(cpuNs / 1e6),
        pidsLimitHit,
        memoryLimitHit,
      };
    },
    members,
    async destroy() {
      // A fork bomb can create processes while we kill; repeat until the group is empty.
      for (let attempt = 0; attempt < 200; attempt++) {
        const pids = members();
        if (pids.length === 0) break;
        for (const pid of pids) {
          try {
            process.kill(pid, "SIGKILL");
          } catch { /* already gone */ }
        }
        await sleep(10);
      }
      for (const dir of dirs.values()) {
        for (let attempt = 0; attempt < 50 && !tryRmdir(dir); attempt++) await sleep(10);
      }
    },
  };
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return !existsSync(dir);
  }
}

/**
 * Removes run groups whose creating process is gone (a measuring process killed because its
 * judgment was superseded cannot clean up after itself). A group with members is left alone:
 * rmdir refuses it.
 */
export function sweepOrphanedGroups(): void {
  for (const controller of CONTROLLERS) {
    const parent = controllerDir(controller);
    if (parent === null) continue;
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = /^ranex-run-(\d+)-[0-9a-f]+$/.exec(name)?.[1];
      if (owner === undefined || processAlive(Number(owner))) continue;
      tryRmdir(join(parent, name));
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
