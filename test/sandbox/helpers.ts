import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { randomBytes } from "node:crypto";
import type { SandboxProfile } from "../../src/sandbox/index.js";

// Shared by the sandbox tests: a small profile and a /proc scan for anything a run left behind.

export const PROFILE: SandboxProfile = {
  backend: "bwrap",
  readonly: [],
  memoryBytes: 512 * 1024 * 1024,
  maxProcesses: 64,
  outputLimitBytes: 4096,
};

export function marker(): string {
  return `ranex-marker-${randomBytes(6).toString("hex")}`;
}

/** Host pids whose command line carries `mark`, or whose working directory is inside `dir`. */
export function survivors(mark: string, dir?: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmdline.includes(mark)) {
        found.push(pid);
        continue;
      }
      if (dir !== undefined && readlinkSync(`/proc/${pid}/cwd`).startsWith(dir)) found.push(pid);
    } catch { /* exited while we looked */ }
  }
  return found;
}
