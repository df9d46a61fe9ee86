import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { killTree } from "../../src/measure/process-tree.js";

// A superseded judgment's measuring process is ended with everything it started (issue 21's abort):
// a child in a process group of its own (the sandbox's launcher) that forks while the kill goes out
// must not outlive it. Real processes: a root whose detached child forks a sleeper every few ms.

/** Live processes whose command line holds `marker`. */
function holding(marker: string): number[] {
  return readdirSync("/proc").filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (/\) [ZX] /.test(stat)) return false;
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
    } catch {
      return false;
    }
  }).map(Number);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("killTree", () => {
  it("leaves nothing of a tree whose detached child keeps forking", async () => {
    for (let round = 0; round < 8; round++) {
      const marker = `ranex-tree-${process.pid}-${round}-${Date.now()}`;
      // root -> sh (its own process group) -> a sleeper forked every 2 ms, each naming the marker.
      const forker = `while :; do /bin/sh -c 'sleep 30; : ${marker}' & sleep 0.002; done`;
      const rootScript = `require("node:child_process").spawn("/bin/sh", ["-c", ${JSON.stringify(forker)}], { detached: true, stdio: "ignore" }); setInterval(() => {}, 1000);`;
      const root = spawn(process.execPath, ["-e", rootScript, marker], { stdio: "ignore" });
      try {
        for (let i = 0; i < 100 && holding(marker).length < 6; i++) await sleep(20);
        expect(holding(marker).length).toBeGreaterThan(3);
        killTree(root.pid!);
        await sleep(300);
        expect(holding(marker)).toEqual([]);
      } finally {
        for (const pid of holding(marker)) {
          try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
        }
      }
    }
  }, 60_000);
});
