import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkSandbox, createSandbox, KeylessError, type RunRequest } from "../../src/sandbox/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { PROFILE } from "./helpers.js";

function request(overrides: Partial<RunRequest> = {}): RunRequest {
  return { command: "true", workdir: tempDir("ranex-run-"), env: {}, timeoutMs: 5000, network: false, ...overrides };
}

describe("the bwrap runner", () => {
  it("builds the environment from empty, pins PATH/HOME/CI/LANG/TMPDIR, and adds the request's variables", async () => {
    const result = await createSandbox(PROFILE).run(request({
      command: "env | sort",
      env: { RANEX_JUNIT: "/out/junit.xml", PATH: "/evil", HOME: "/work" },
    }));
    expect(result.exitCode).toBe(0);
    expect(result.outputTail.trim().split("\n")).toEqual([
      "CI=true", "HOME=/tmp/home", "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin", "PWD=/work", "RANEX_JUNIT=/out/junit.xml", "TMPDIR=/tmp",
    ]);
  });

  it("runs as an unprivileged user with Debian's python3 (with pytest) and node", async () => {
    const result = await createSandbox(PROFILE).run(request({
      command: "id -u; command -v python3; python3 -c 'import pytest; print(\"pytest\", pytest.__version__)'; command -v node; node -e 'console.log(typeof process.version)'; grep CapEff /proc/self/status",
    }));
    const lines = result.outputTail.trim().split("\n");
    expect(lines[0]).toBe("65534");
    expect(lines[1]).toBe("/usr/bin/python3");
    expect(lines[2]).toMatch(/^pytest \d+/);
    expect(lines[3]).toBe("/usr/bin/node");
    expect(lines[4]).toBe("string");
    expect(lines[5]).toMatch(/^CapEff:\s+0+$/);
  });

  it("passes the exit code through and reads/writes the workdir at /work and the outdir at its own path", async () => {
    const workdir = tempDir("ranex-work-");
    const outdir = tempDir("ranex-out-");
    writeFileSync(join(workdir, "input.txt"), "from the tree\n");
    const result = await createSandbox(PROFILE).run(request({
      workdir, outdir,
      command: `cat input.txt; echo made > made.txt; echo report > ${outdir}/junit.xml; exit 7`,
    }));
    expect(result.exitCode).toBe(7);
    expect(result.signal).toBeNull();
    expect(result.outputTail).toBe("from the tree\n");
    expect(readFileSync(join(workdir, "made.txt"), "utf8")).toBe("made\n");
    expect(readFileSync(join(outdir, "junit.xml"), "utf8")).toBe("report\n");
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it("mounts the profile's extra toolchain paths read-only", async () => {
    const toolchain = tempDir("ranex-toolchain-");
    mkdirSync(join(toolchain, "bin"));
    writeFileSync(join(toolchain, "bin", "tool"), "#!/bin/sh\necho tool-ran\n", { mode: 0o755 });
    const result = await createSandbox({ ...PROFILE, readonly: [toolchain] }).run(request({
      command: `${toolchain}/bin/tool; touch ${toolchain}/x 2>/dev/null && echo wrote || echo read-only`,
    }));
    expect(result.outputTail).toBe("tool-ran\nread-only\n");
    expect(existsSync(join(toolchain, "x"))).toBe(false);
  });

  it("says how to fix a missing bubblewrap instead of throwing", async () => {
    const result = await createSandbox(PROFILE, { bwrapPath: "/nonexistent/bwrap" }).run(request());
    expect(result.exitCode).toBeNull();
    expect(result.violation).toMatch(/bubblewrap is not installed.*apt-get install -y bubblewrap/);
  });

  it("reports a sandbox that could not be set up as a violation, not as the command's exit code", async () => {
    const result = await createSandbox({ ...PROFILE, readonly: ["/nonexistent/toolchain"] }).run(request({ command: "exit 1" }));
    expect(result.exitCode).toBeNull();
    expect(result.violation).toMatch(/could not start.*\/nonexistent\/toolchain/);
  });

  it("refuses a workdir that is not there", async () => {
    const result = await createSandbox(PROFILE).run(request({ workdir: "/nonexistent/work" }));
    expect(result.exitCode).toBeNull();
    expect(result.violation).toContain("/nonexistent/work is not a directory");
  });
});

describe("keyless runs", () => {
  it("refuses to start when its own environment holds a secret, before spawning anything", async () => {
    const workdir = tempDir();
    process.env.GITHUB_TOKEN = "not-a-real-token-123";
    try {
      await expect(createSandbox(PROFILE).run(request({ workdir, command: "touch spawned" }))).rejects.toThrow(KeylessError);
    } finally {
      delete process.env.GITHUB_TOKEN;
    }
    expect(existsSync(join(workdir, "spawned"))).toBe(false);
  });

  it("refuses a secret passed in the request's environment or command, without echoing it", async () => {
    const pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
    await expect(createSandbox(PROFILE).run(request({ env: { CONFIG: pem } }))).rejects.toThrow(/CONFIG holds a PEM private key/);
    await expect(createSandbox(PROFILE).run(request({ command: `echo ghp_${"k".repeat(36)}` }))).rejects.toThrow(KeylessError);
    const message = await createSandbox(PROFILE).run(request({ env: { CONFIG: pem } })).then(() => "", (err: Error) => err.message);
    expect(message).toContain("CONFIG");
    expect(message).not.toContain("b3BlbnNzaC1rZXkt");
  });
});

describe("the none backend", () => {
  it("runs in the workdir with the same empty environment and a scratch HOME", async () => {
    const workdir = tempDir("ranex-none-");
    const result = await createSandbox({ ...PROFILE, backend: "none" }).run(request({ workdir, command: "pwd; env | sort | cut -d= -f1 | tr '\\n' ' '; echo; echo $HOME" }));
    const [pwd, names, home] = result.outputTail.trim().split("\n");
    expect(pwd).toBe(workdir);
    expect(names?.trim()).toBe("CI HOME LANG PATH PWD TMPDIR");
    expect(home).toMatch(/ranex-sbx-.*\/home$/);
    expect(result.exitCode).toBe(0);
  });
});

describe("checkSandbox", () => {
  it("finds bwrap able to create namespaces with capabilities dropped on this machine", async () => {
    expect(await checkSandbox()).toEqual({ ok: true });
  });
});
