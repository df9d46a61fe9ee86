import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run, runDoctor } from "../../src/cli/commands/doctor.js";
import { UsageError, type CliIo } from "../../src/cli/io.js";

function captureIo(env: Record<string, string> = { PATH: "/usr/bin:/bin" }): CliIo & { out: () => string } {
  let out = "";
  return { stdout: (t) => { out += t; }, stderr: (t) => { out += t; }, env, cwd: process.cwd(), out: () => out };
}

describe("ranex doctor", () => {
  it("passes on this machine, printing every check with ok", async () => {
    const io = captureIo();
    const code = await run([], io);
    const out = io.out();
    expect(code).toBe(0);
    for (const name of ["bubblewrap", "namespaces", "capabilities dropped", "memory and process limits", "python3 + pytest (in sandbox)", "node (in sandbox)", "keyless environment"]) {
      expect(out).toMatch(new RegExp(`^ok {4}${name.replace(/[()+]/g, "\\$&")}: `, "m"));
    }
    expect(out).toMatch(/bubblewrap: \/usr\/bin\/bwrap \(bubblewrap \d/);
    expect(out).toContain("uid 65534, CapEff 0");
    expect(out).toContain("/usr/bin/python3");
  });

  it("fails with the fix when bubblewrap is missing, and exits 1", async () => {
    const io = captureIo();
    const code = await runDoctor([], io, { bwrapPath: "/nonexistent/bwrap" });
    expect(code).toBe(1);
    expect(io.out()).toMatch(/^FAIL {2}bubblewrap: not found at \/nonexistent\/bwrap\n {6}fix: apt-get install -y bubblewrap$/m);
    expect(io.out()).toMatch(/^FAIL {2}namespaces: not checked/m);
  });

  it("warns (without echoing it) when its environment carries a secret, and still passes the required checks", async () => {
    const io = captureIo({ PATH: "/usr/bin", WEBHOOK_SECRET: "shh-do-not-print" });
    const code = await run([], io);
    expect(code).toBe(0);
    expect(io.out()).toMatch(/^warn {2}keyless environment: .*WEBHOOK_SECRET/m);
    expect(io.out()).not.toContain("shh-do-not-print");
  });

  it("shows the runners the sandbox sees, with the toolchain a policy names first", async () => {
    const io = captureIo();
    const code = await run(["--toolchain", "node_modules/.bin"], io);
    expect(code).toBe(0);
    expect(io.out()).toMatch(/^ok {4}tools \(in sandbox\): PATH .*node_modules\/\.bin first$/m);
    expect(io.out()).toMatch(/^ +python3 \/usr\/bin\/python3 Python 3/m);
    // Under /work (as here) the tree mounted there hides the checkout, so it is shown elsewhere.
    const shownAt = process.cwd().startsWith("/work/") ? "/opt/ranex/toolchain/0/node_modules/.bin" : join(process.cwd(), "node_modules/.bin");
    expect(io.out().split("\n").some((line) => line.trim().startsWith(`vitest ${shownAt}/vitest vitest/`))).toBe(true);
  });

  it("rejects arguments", async () => {
    await expect(run(["--fix"], captureIo())).rejects.toThrow(UsageError);
  });
});
