import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createSandbox, type SandboxProfile } from "../../src/sandbox/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { marker, PROFILE, survivors } from "./helpers.js";

// Each hostile shape must end within timeout + 5 s and leave nothing running on the host. The marker
// sits in every shell's command line; the unique workdir is every process's cwd, so /proc finds both.

const GRACE_MS = 5000;

async function runHostile(profile: SandboxProfile, command: (mark: string) => string, timeoutMs: number) {
  const mark = marker();
  const workdir = tempDir("ranex-contain-");
  const started = Date.now();
  const result = await createSandbox(profile).run({ command: command(mark), workdir, env: {}, timeoutMs, network: false });
  const elapsed = Date.now() - started;
  return { result, elapsed, left: survivors(mark, workdir) };
}

it("the /proc scan finds a live process by marker and by cwd, so an empty scan means something", async () => {
  const mark = marker();
  const dir = tempDir("ranex-scan-");
  const byMarker = spawn("/bin/sh", ["-c", `sleep 5; : ${mark}`]);
  const byCwd = spawn("/bin/sleep", ["5"], { cwd: dir });
  try {
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(survivors(mark)).toContain(byMarker.pid);
    expect(survivors("no-such-marker", dir)).toContain(byCwd.pid);
  } finally {
    byMarker.kill("SIGKILL");
    byCwd.kill("SIGKILL");
  }
});

describe.each([["bwrap"], ["none"]] as const)("containment, backend %s", (backend) => {
  const profile: SandboxProfile = { ...PROFILE, backend };

  it("ends `sleep infinity` at the timeout", async () => {
    const { result, elapsed, left } = await runHostile(profile, (m) => `sleep infinity; : ${m}`, 1000);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(1000 + GRACE_MS);
    expect(left).toEqual([]);
  });

  it("leaves no setsid orphan behind after the command itself exits", async () => {
    const { result, left } = await runHostile(profile, (m) => `setsid sh -c 'sleep 1000; : ${m}' & sleep 0.2; echo parent-done`, 3000);
    expect(result.exitCode).toBe(0);
    expect(result.outputTail).toContain("parent-done");
    expect(left).toEqual([]);
  });

  it("kills a child that ignores SIGTERM", async () => {
    const { result, elapsed, left } = await runHostile(profile, (m) => `sh -c 'trap "" TERM; while :; do sleep 1; done; : ${m}' & wait; : ${m}`, 1000);
    expect(result.timedOut).toBe(true);
    expect(elapsed).toBeLessThan(1000 + GRACE_MS);
    expect(left).toEqual([]);
  });
});

describe("containment, bwrap only", () => {
  it("bounds a fork bomb by the process limit and ends it at the timeout", async () => {
    const { result, elapsed, left } = await runHostile(PROFILE, (m) => `bomb() { bomb | bomb & }; bomb; sleep 100; : ${m}`, 2000);
    expect(elapsed).toBeLessThan(2000 + GRACE_MS);
    expect(result.violation).toContain(`limit of ${PROFILE.maxProcesses} processes`);
    expect(left).toEqual([]);
    // The machine is still usable: a trivial run right after is quick.
    const started = Date.now();
    const quick = await createSandbox(PROFILE).run({ command: "echo alive", workdir: tempDir(), env: {}, timeoutMs: 3000, network: false });
    expect(quick.outputTail).toBe("alive\n");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("keeps only the tail of a 1 GB print and counts the rest", async () => {
    const { result, elapsed, left } = await runHostile(PROFILE, (m) => `head -c 1000000000 /dev/zero | tr '\\0' x; echo; echo END-${m}`, 3000);
    expect(elapsed).toBeLessThan(3000 + GRACE_MS);
    expect(Buffer.byteLength(result.outputTail)).toBeLessThanOrEqual(PROFILE.outputLimitBytes);
    expect(result.outputTruncated).toBe(true);
    expect(result.outputBytes).toBeGreaterThan(PROFILE.outputLimitBytes);
    if (!result.timedOut) {
      expect(result.outputBytes).toBeGreaterThan(1_000_000_000);
      expect(result.outputTail).toMatch(/x+\nEND-ranex-marker-/);
    }
    expect(left).toEqual([]);
  });

  it("kills a run that exceeds its memory limit and says so", async () => {
    const profile = { ...PROFILE, memoryBytes: 96 * 1024 * 1024 };
    const { result, left } = await runHostile(profile, (m) => `python3 -c "b = bytearray(400 * 1024 * 1024); print('allocated')"; : ${m}`, 5000);
    expect(result.outputTail).not.toContain("allocated");
    expect(result.violation).toContain("memory limit");
    expect(left).toEqual([]);
  });

  it("reports peak memory and CPU time from the run's cgroup", async () => {
    const { result } = await runHostile(PROFILE, (m) => `python3 -c "b = bytearray(64 * 1024 * 1024); sum(range(3000000))"; : ${m}`, 5000);
    expect(result.exitCode).toBe(0);
    expect(result.peakMemoryBytes).toBeGreaterThan(64 * 1024 * 1024);
    expect(result.cpuMs).toBeGreaterThan(0);
  });
});

describe("prlimit fallback (no cgroup)", () => {
  // RLIMIT_NPROC is not enforced for processes whose outer uid is root (the kernel exempts it), so
  // as root only the address-space limit holds; the cgroup path above is what bounds a fork bomb.
  it("still bounds the address space inside the sandbox", async () => {
    const sandbox = createSandbox({ ...PROFILE, memoryBytes: 256 * 1024 * 1024 }, { limits: "prlimit" });
    const result = await sandbox.run({
      command: `python3 -c "b = bytearray(400 * 1024 * 1024); print('allocated')"`,
      workdir: tempDir(), env: {}, timeoutMs: 3000, network: false,
    });
    expect(result.outputTail).toContain("MemoryError");
    expect(result.outputTail).not.toContain("allocated");
    expect(result.peakMemoryBytes).toBeNull();
  });
});
