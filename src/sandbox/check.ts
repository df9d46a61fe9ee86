import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BWRAP_FIX, createSandbox, findBwrap } from "./runner.js";
import { releaseTree } from "./tree-limit.js";

// Up-front check (the judge and `ranex doctor`): a judge that only learns at measuring time that it
// cannot isolate anything would FAIL every PR with a confusing reason.

export interface SandboxCheck {
  ok: boolean;
  problem?: string;
  /** One sentence a person can act on. */
  fix?: string;
}

const PROBE_PROFILE = { backend: "bwrap", readonly: [], memoryBytes: 256 * 1024 * 1024, maxProcesses: 32, outputLimitBytes: 4096 } as const;

/** bwrap present, and able to create the namespaces of the real profile with capabilities dropped and the filter on. */
export async function checkSandbox(): Promise<SandboxCheck> {
  if (findBwrap() === null) return { ok: false, problem: "bubblewrap (bwrap) is not installed", fix: "apt-get install -y bubblewrap" };
  const workdir = mkdtempSync(join(tmpdir(), "ranex-check-"));
  try {
    const sandbox = createSandbox({ ...PROBE_PROFILE, readonly: [] });
    const result = await sandbox.run({
      command: "grep -E '^(CapEff|Uid|Seccomp):' /proc/self/status",
      workdir, env: {}, timeoutMs: 5000, network: false,
    });
    if (result.violation !== null) {
      return { ok: false, problem: result.violation, fix: "allow user namespaces (sysctl -w kernel.unprivileged_userns_clone=1, or run the judge as root) and re-run 'ranex doctor'" };
    }
    if (result.exitCode !== 0) return { ok: false, problem: `the probe inside the sandbox failed: ${result.outputTail.trim()}`, fix: BWRAP_FIX };
    const capEff = /CapEff:\s*([0-9a-f]+)/.exec(result.outputTail)?.[1];
    if (capEff === undefined || !/^0+$/.test(capEff)) {
      return { ok: false, problem: `code inside the sandbox still holds capabilities (CapEff ${capEff ?? "unknown"})`, fix: "use a bubblewrap that supports --cap-drop (0.4 or newer)" };
    }
    // bwrap refuses to start when it cannot install the filter; this says so before any PR is judged.
    if (!/Seccomp:\s*2\b/.test(result.outputTail)) {
      return { ok: false, problem: "code inside the sandbox runs without the seccomp filter that keeps the run's processes apart", fix: "use a kernel with seccomp filters (CONFIG_SECCOMP_FILTER) and a bubblewrap that supports --seccomp" };
    }
    return { ok: true };
  } finally {
    releaseTree(workdir);
    rmSync(workdir, { recursive: true, force: true });
  }
}
