import { closeSync, existsSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findBwrap } from "../../src/sandbox/index.js";
import { launch } from "../../src/sandbox/launch.js";
import { hostLoader } from "../../src/sandbox/process-isolation.js";
import { bwrapArguments } from "../../src/sandbox/profile.js";
import { AUDIT_ARCH_X86_64, DENIED_SYSCALLS, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO, seccompProgram } from "../../src/sandbox/seccomp.js";
import { tempDir } from "../helpers/git-repo.js";
import { PROFILE } from "./helpers.js";

// The filter is run here by a small classic-BPF interpreter (the few opcodes it uses), so what it
// decides for a call is tested without a kernel; test/sandbox/processes.test.ts tests it installed.

function decide(program: Buffer, arch: number, nr: number): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch, 4);
  let acc = 0;
  for (let pc = 0; pc < program.length / 8;) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code}`);
    pc += 1;
  }
  throw new Error("the program ran off its end");
}

const EPERM = SECCOMP_RET_ERRNO | 1;

describe("the sandbox's seccomp filter", () => {
  const program = seccompProgram("x64");

  it("denies every listed call with EPERM (ptrace, process_vm_writev, pidfd_getfd, mount, bpf, ...)", () => {
    for (const [name, nr] of Object.entries(DENIED_SYSCALLS)) expect([name, decide(program, AUDIT_ARCH_X86_64, nr)]).toEqual([name, EPERM]);
    expect(DENIED_SYSCALLS).toMatchObject({ ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, pidfd_getfd: 438 });
  });

  it("allows everything else: read, write, openat, clone, clone3, execve, prctl, seccomp itself", () => {
    for (const nr of [0, 1, 257, 56, 435, 59, 157, 317, 60, 231]) expect(decide(program, AUDIT_ARCH_X86_64, nr)).toBe(SECCOMP_RET_ALLOW);
  });

  it("denies x32 calls and any other architecture (i386's int 0x80 numbers differ)", () => {
    expect(decide(program, AUDIT_ARCH_X86_64, 0x40000000 + 101)).toBe(EPERM);
    expect(decide(program, AUDIT_ARCH_X86_64, 0x40000000)).toBe(EPERM);
    expect(decide(program, 0x40000003 /* AUDIT_ARCH_I386 */, 26 /* i386 ptrace */)).toBe(EPERM);
  });

  it("refuses to build for an architecture whose numbers it does not know", () => {
    expect(() => seccompProgram("arm64")).toThrow(/x86_64 only.*arm64/);
  });
});

describe("bwrap with a filter it cannot install", () => {
  it("does not run the command at all (the run fails to start, it never runs unfiltered)", async () => {
    const dir = tempDir("ranex-badfilter-");
    writeFileSync(join(dir, "bad.bpf"), Buffer.from([1, 2, 3])); // not a whole instruction
    const bad = openSync(join(dir, "bad.bpf"), "r");
    const loader = openSync(hostLoader(), "r");
    try {
      writeFileSync(join(dir, "passwd"), "");
      writeFileSync(join(dir, "group"), "");
      writeFileSync(join(dir, "hosts"), "");
      const request = { command: "", workdir: tempDir(), env: {}, timeoutMs: 10_000, network: false };
      const args = bwrapArguments(PROFILE, request, { accountsDir: dir, loaderPath: hostLoader() }, ["/bin/sh", "-c", `echo ran > ${dir}/ran`]);
      const outcome = await launch({
        program: [findBwrap() ?? "/usr/bin/bwrap", "--json-status-fd", "3", ...args], cwd: dir, env: { PATH: "/usr/bin" },
        statusWriter: "bwrap", timeoutMs: 10_000, outputLimitBytes: 4096, cgroup: null, passFds: [bad, loader],
      });
      expect(outcome.status["exit-code"]).toBeUndefined();
      expect(outcome.exitCode).not.toBe(0);
      expect(outcome.output.text()).toMatch(/seccomp/i);
      expect(existsSync(join(dir, "ran"))).toBe(false);
    } finally {
      closeSync(bad);
      closeSync(loader);
    }
  });
});
