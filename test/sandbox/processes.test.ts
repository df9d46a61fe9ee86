import { copyFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type RunResult } from "../../src/sandbox/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { PROFILE } from "./helpers.js";

// One process of a run reaching into another (issue 19): code under test writing into the memory
// of the runner that reports on it, attaching to it, reading its environment, reopening its pipes.
// probes/processes.py plays both sides. The same probe under backend "none" (no namespaces, as root
// on the host) is the control: there every way in works, which shows the probe can tell.

const PROBE = join(import.meta.dirname, "probes", "processes.py");

function parse(result: RunResult): Record<string, string> {
  const found: Record<string, string> = {};
  for (const line of result.outputTail.split("\n")) {
    const m = /^(\w+)=(yes|no)(?::(.*))?$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined) found[m[1]] = m[2] === "yes" ? "yes" : m[3] === undefined ? "no" : `no:${m[3]}`;
  }
  return found;
}

let inside: Record<string, string> = {};
let control: Record<string, string> = {};
let status = "";

beforeAll(async () => {
  const workdir = tempDir("ranex-procs-");
  copyFileSync(PROBE, join(workdir, "processes.py"));
  const request = {
    // Through `cat`, so the parent's fd 1 is a pipe (the launcher hands the shell a socket, which /proc does not reopen).
    command: "python3 processes.py parent | cat; grep -E '^(Seccomp|NoNewPrivs):' /proc/self/status",
    workdir, env: { RANEX_PROBE_CANARY: `canary-${randomBytes(6).toString("hex")}` }, timeoutMs: 60_000, network: false,
  };
  const [bwrapRun, noneRun] = await Promise.all([
    createSandbox(PROFILE).run(request),
    createSandbox({ ...PROFILE, backend: "none" }).run(request),
  ]);
  expect(bwrapRun.violation).toBeNull();
  inside = parse(bwrapRun);
  control = parse(noneRun);
  status = bwrapRun.outputTail;
}, 90_000);

describe("one process of a run reaching into another", () => {
  it("the control on the host gets in every way, so the probe can tell", () => {
    expect(control).toMatchObject({
      mem_write: "yes", mem_changed: "yes", vm_writev: "yes", vm_changed: "yes", ptrace: "yes",
      environ: "yes", mem_read: "yes", fd1_write: "yes", fd_write: "yes", fd_received: "yes", own_proc: "yes",
    });
  });

  it("cannot write into another process's memory through /proc/<pid>/mem (read-only /proc)", () => {
    expect(inside.mem_write).toMatch(/^no:.*(Read-only file system|Permission denied)/);
    expect(inside.mem_changed).toBe("no");
  });

  it("cannot use process_vm_writev, process_vm_readv or ptrace at all (seccomp, EPERM)", () => {
    expect(inside.vm_writev).toMatch(/^no:.*Operation not permitted/);
    expect(inside.vm_changed).toBe("no");
    expect(inside.vm_readv_self).toMatch(/^no:.*Operation not permitted/);
    expect(inside.ptrace).toMatch(/^no:.*Operation not permitted/);
    expect(status).toMatch(/Seccomp:\s+2/);
    expect(status).toMatch(/NoNewPrivs:\s+1/);
  });

  it("cannot read another process's environment or memory, nor reopen its file descriptors", () => {
    expect(inside.environ).toMatch(/^no:.*Permission denied/);
    expect(inside.mem_read).toMatch(/^no:.*Permission denied/);
    expect(inside.fd1_write).toMatch(/^no:.*Permission denied/);
    expect(inside.fd1_injected).toBeUndefined();
    expect(inside.fd_write).toMatch(/^no:.*Permission denied/);
    expect(inside.fd_received).toBe("no");
  });

  it("still reads its own /proc/self (environ, maps, fd, exe, mem), as runtimes do", () => {
    expect(inside.own_proc).toBe("yes");
  });
});

describe("the execute-only loader", () => {
  it("cannot be read by the run, yet programs start and a C program still links (libc.so's script names a readable copy)", async () => {
    const result = await createSandbox(PROFILE).run({
      command: [
        "head -c 4 /lib64/ld-linux-x86-64.so.2 >/dev/null 2>&1 && echo loader_read=yes || echo loader_read=no",
        "printf 'int main(void){return 0;}\\n' > /tmp/m.c && cc /tmp/m.c -o /tmp/m && /tmp/m && echo linked=yes || echo linked=no",
        "grep -c . /proc/self/maps >/dev/null && echo own_maps=yes || echo own_maps=no",
      ].join("\n"),
      workdir: tempDir("ranex-loader-"), env: {}, timeoutMs: 60_000, network: false,
    });
    expect(result.violation).toBeNull();
    expect(parse(result)).toEqual({ loader_read: "no", linked: "yes", own_maps: "yes" });
  });

  it("stays readable only when asked (readableLoader, for valgrind in the bench), the filter still on", async () => {
    const result = await createSandbox(PROFILE, { readableLoader: true }).run({
      command: "head -c 4 /lib64/ld-linux-x86-64.so.2 >/dev/null && echo loader_read=yes; grep -E '^Seccomp:' /proc/self/status",
      workdir: tempDir("ranex-loader-"), env: {}, timeoutMs: 60_000, network: false,
    });
    expect(result.violation).toBeNull();
    expect(parse(result)).toEqual({ loader_read: "yes" });
    expect(result.outputTail).toMatch(/Seccomp:\s+2/);
  });
});
