// Whether work beside the head run pays (issue 22, "small suites stay fast"): tests.stable's early
// repeats run beside the head run on a copy of the head and on the cached base's tree. On a machine
// whose cores are busy they only share the head run's core, and the copy costs a checkout, so a
// warm judgment of a small suite got slower than a cold one. They start beside it only when a core
// is free for them; otherwise they wait for the main runs like every other repeat.
//
// "Free" is read over the judgment's own first stages (fetch, merge, diff: from its start to the
// moment the runs are planned), from the kernel's CPU counters less this process's own CPU and its
// finished children's (git), not from the 1-minute load average: that average still carries the
// judgment before this one for a minute after it ended, so on a machine that judges one PR after
// another the repeats never went beside a head run even with both cores idle (the bench's
// python-long: warm 1.42 T with a core idle, its repeats after the head run).
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";

/** The machine's cores less its load (the 1-minute load average), never below 0. */
export function idleCores(): number {
  return Math.max(0, availableParallelism() - (loadavg()[0] ?? 0));
}

/**
 * Whether a core is free beside the head run: the head run takes one, so one more must be idle,
 * most of it (the judge's own parent, busy laying out trees while this is asked, counts in the load).
 */
export function coreFreeBeside(idle: number): boolean {
  return idle >= 1.5;
}

/** CPU counters at one moment, in clock ticks: all cores' busy time, and this process's with its finished children. */
export interface CpuSample {
  busy: number;
  all: number;
  own: number;
}

/**
 * Reads /proc/stat, /proc/self/stat and the stat of `mine` (processes of this judgment that are not
 * waited for yet: the measuring process, loading while git is read; one that is gone counts 0); null
 * where /proc cannot be read (not Linux), which falls back to the load average.
 */
export function sampleCpu(mine: readonly number[] = [], read: (path: string) => string = (p) => readFileSync(p, "utf8")): CpuSample | null {
  try {
    const line = read("/proc/stat").split("\n", 1)[0] ?? "";
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    if (!line.startsWith("cpu ") || ticks.length < 4 || ticks.some((t) => !Number.isFinite(t))) return null;
    // user nice system idle iowait irq softirq steal (guest time is already inside user and nice).
    const all = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
    const busy = all - (ticks[3] ?? 0) - (ticks[4] ?? 0);
    let own = processTicks(read("/proc/self/stat"), true);
    for (const pid of mine) {
      let stat: string;
      try {
        stat = read(`/proc/${pid}/stat`);
      } catch {
        continue;
      }
      own += processTicks(stat, false);
    }
    return Number.isFinite(own) ? { busy, all, own } : null;
  } catch {
    return null;
  }
}

/** A process's CPU ticks from its stat line: utime and stime, with its waited-for children's when asked. */
function processTicks(stat: string, children: boolean): number {
  // The command name may hold spaces or brackets: the fields start after its last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
  // Fields 14 to 17 of proc(5) (utime stime cutime cstime) are 11 to 14 after the name and state.
  const own = (fields[11] ?? NaN) + (fields[12] ?? NaN);
  return children ? own + (fields[13] ?? NaN) + (fields[14] ?? NaN) : own;
}

/** Too short a window says nothing at 100 ticks a second: under this many ticks of all cores, the load average decides. */
const MIN_WINDOW_TICKS = 40;

/**
 * Idle cores between two samples: the cores less what everything but this process (and the children
 * it has waited for) kept busy. Null when the window is too short to tell.
 */
export function idleBetween(before: CpuSample, after: CpuSample, cores: number): number | null {
  const window = after.all - before.all;
  if (window < MIN_WINDOW_TICKS) return null;
  const others = Math.max(0, after.busy - before.busy - (after.own - before.own));
  return Math.max(0, cores * (1 - others / window));
}

/** Idle cores since `start` (a sample taken when the judgment began), else the load average's. */
export function idleCoresSince(start: CpuSample | null, sample: () => CpuSample | null = sampleCpu): () => number {
  return () => {
    const now = start === null ? null : sample();
    const idle = start === null || now === null ? null : idleBetween(start, now, availableParallelism());
    return idle ?? idleCores();
  };
}
