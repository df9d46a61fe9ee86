import { describe, expect, it } from "vitest";
import { idleBetween, idleCoresSince, sampleCpu, type CpuSample } from "../../src/judge/idle-cores.js";

// Whether tests.stable's early repeats go beside the head run is decided from the CPU the machine
// spent during the judgment's first stages, less the judgment's own (src/judge/idle-cores.ts), not
// from the 1-minute load average, which still carries the previous judgment for a minute.
describe("idle cores over the judgment's first stages", () => {
  const stat = (user: number, idle: number): string => `cpu  ${user} 0 0 ${idle} 0 0 0 0 0 0\ncpu0 1 2 3 4\n`;
  // A process whose name holds ") " and spaces: the fields are read after the last ")".
  const self = (utime: number, cutime: number): string => `42 (node ) x) S 1 42 42 0 -1 4194560 0 0 0 0 ${utime} 0 ${cutime} 0 20 0 1 0`;

  it("counts the judgment's own CPU, its waited-for children's and the measurer's as not the machine's load", () => {
    const files = (user: number, idle: number, utime: number, cutime: number, measurer: number | null) => (path: string): string => {
      if (path === "/proc/stat") return stat(user, idle);
      if (path === "/proc/self/stat") return self(utime, cutime);
      if (path === "/proc/77/stat" && measurer !== null) return self(measurer, 999);
      throw new Error(`ENOENT ${path}`);
    };
    const before = sampleCpu([], files(1000, 5000, 10, 0, null));
    // 200 ticks of two cores' time: 100 busy, all of it this process (40), its git children (30) and
    // the measuring process it started (30, its own children's time not counted).
    const after = sampleCpu([77], files(1100, 5100, 50, 30, 30));
    expect(before).not.toBeNull();
    expect(idleBetween(before!, after!, 2)).toBe(2);
    // The same window with another process busy for 60 of the ticks: 0.6 of a core less.
    const busier: CpuSample = { ...after!, busy: after!.busy + 60, all: after!.all };
    expect(idleBetween(before!, busier, 2)).toBeCloseTo(1.4, 5);
  });

  it("says nothing over too short a window, and falls back to the load average without /proc", () => {
    const a: CpuSample = { busy: 100, all: 1000, own: 5 };
    expect(idleBetween(a, { busy: 110, all: 1020, own: 5 }, 2)).toBeNull();
    const noProc = sampleCpu([], () => {
      throw new Error("ENOENT");
    });
    expect(noProc).toBeNull();
    const idle = idleCoresSince(null)();
    expect(idle).toBeGreaterThanOrEqual(0);
  });

  it("reads this machine's counters", () => {
    const now = sampleCpu();
    expect(now).not.toBeNull();
    expect(now!.all).toBeGreaterThan(now!.busy);
    expect(now!.busy).toBeGreaterThanOrEqual(now!.own);
  });
});
