import { existsSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { assertKeyless } from "./keyless.js";
import { placeOverlays } from "./overlays.js";
import { boundTree, treeLimitProblem } from "./tree-limit.js";
import { baseEnvironment, bwrapArguments, generatedAccounts, generatedHosts, SANDBOX_PATH, toolchainMounts, toolchainPath } from "./profile.js";
import { cgroupSupport, createRunCgroup, type RunCgroup } from "./cgroup.js";
import { launch, type LaunchOutcome } from "./launch.js";
import { openProcessIsolation, type ProcessIsolation } from "./process-isolation.js";
import type { RunRequest, RunResult, SandboxProfile } from "./types.js";

export interface Sandbox {
  readonly profile: SandboxProfile;
  run(request: RunRequest): Promise<RunResult>;
}

export interface SandboxOptions {
  /** How memory and process limits are applied. "auto": cgroup v1 when writable here, else prlimit. */
  limits?: "auto" | "cgroup" | "prlimit";
  /** Where bwrap is; default: the first of BWRAP_CANDIDATES that exists. */
  bwrapPath?: string;
  /**
   * Leave the dynamic loader readable (it is execute-only otherwise, which makes every dynamically
   * linked process of the run non-dumpable: ./process-isolation.ts). Only for instrumentation that
   * loads programs itself, valgrind in the bench; the judge never sets it. The seccomp filter and the
   * read-only /proc stay.
   */
  readableLoader?: boolean;
}

/** Where bubblewrap may live. Fixed paths, not $PATH: the judge's PATH is not trusted to name it. */
export const BWRAP_CANDIDATES: readonly string[] = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];
export const BWRAP_FIX = "install bubblewrap (apt-get install -y bubblewrap)";

export function findBwrap(): string | null {
  return BWRAP_CANDIDATES.find((path) => existsSync(path)) ?? null;
}

let cgroupDecision: boolean | null = null;
function cgroupsUsable(): boolean {
  cgroupDecision ??= cgroupSupport().ok;
  return cgroupDecision;
}

function failedToStart(reason: string, durationMs = 0): RunResult {
  return {
    exitCode: null, signal: null, timedOut: false, durationMs,
    outputTail: "", outputBytes: 0, outputTruncated: false,
    peakMemoryBytes: null, cpuMs: null, violation: reason,
  };
}

function requestProblem(request: RunRequest): string | null {
  for (const [label, dir] of [["workdir", request.workdir], ["outdir", request.outdir]] as const) {
    if (dir === undefined) continue;
    if (!isAbsolute(dir)) return `the run's ${label} must be an absolute path, got '${dir}'`;
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return `the run's ${label} ${dir} is not a directory`;
  }
  if (!(request.timeoutMs > 0)) return `the run's timeout must be positive, got ${request.timeoutMs}`;
  return frozenPathProblem(request);
}

/**
 * A read-only path must still be a regular file of the tree, reached without a symlink: bwrap would
 * follow a link in the host path and mount whatever it names (a host file) into the sandbox. Setup
 * runs with these paths read-only already, so a change here means something swapped a folder.
 */
function frozenPathProblem(request: RunRequest): string | null {
  const paths = request.readonlyPaths ?? [];
  if (paths.length === 0) return null;
  const root = realpathSync(request.workdir);
  for (const rel of paths) {
    const why = `refused: the frozen path ${JSON.stringify(rel)}`;
    if (rel === "" || rel.startsWith("/") || rel.split("/").some((part) => part === "" || part === "." || part === "..")) {
      return `${why} is not a plain relative path`;
    }
    const full = join(root, rel);
    try {
      if (!lstatSync(full).isFile()) return `${why} is no longer a regular file of the tree`;
      if (realpathSync(full) !== full) return `${why} is reached through a symbolic link`;
    } catch {
      return `${why} is gone from the tree`;
    }
  }
  return null;
}

/** A toolchain directory missing on this machine: every run fails closed, naming it. */
export function toolchainProblem(profile: SandboxProfile): string | null {
  for (const dir of [...(profile.toolchain ?? []), ...toolchainMounts(profile).map((m) => m.host)]) {
    if (!isAbsolute(dir)) return `toolchain.path entry '${dir}' must be an absolute path`;
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      return `toolchain.path entry ${dir} is not a directory on this machine: install the toolchain there or change toolchain.path in .github/ranex.yml`;
    }
  }
  return null;
}

/**
 * prlimit inside the sandbox when no cgroup is available. RLIMIT_NPROC only under bwrap: on the host it
 * would count all of the uid's processes. The kernel does not enforce it when the outer uid is root,
 * so as root only the address-space limit holds (`ranex doctor` says so).
 */
function prlimitPrefix(profile: SandboxProfile, withNproc: boolean): string[] {
  const prefix = ["/usr/bin/prlimit", `--as=${profile.memoryBytes}`];
  if (withNproc) prefix.push(`--nproc=${profile.maxProcesses}`);
  return [...prefix, "--"];
}

function summarise(outcome: LaunchOutcome, cgroup: RunCgroup | null, profile: SandboxProfile, startedInside: boolean): RunResult {
  const stats = cgroup?.readStats() ?? { peakMemoryBytes: null, cpuMs: null, pidsLimitHit: false, memoryLimitHit: false };
  const violations: string[] = [];
  if (!startedInside && !outcome.timedOut) {
    const why = outcome.output.text().trim().split("\n").find((line) => line.trim() !== "") ?? "no message";
    violations.push(`the sandbox could not start (${why}); check that bubblewrap can create namespaces here (run 'ranex doctor')`);
  }
  if (stats.memoryLimitHit) violations.push(`the run hit its memory limit of ${profile.memoryBytes} bytes and was killed`);
  if (stats.pidsLimitHit) violations.push(`the run hit its limit of ${profile.maxProcesses} processes`);
  let exitCode = outcome.exitCode;
  let signal = outcome.signal;
  if (outcome.timedOut) {
    exitCode = null;
    signal = "SIGKILL";
  } else if (!startedInside) {
    exitCode = null;
  } else if (typeof outcome.status["exit-code"] === "number") {
    exitCode = outcome.status["exit-code"];
  }
  return {
    exitCode, signal, timedOut: outcome.timedOut, durationMs: outcome.durationMs,
    outputTail: outcome.output.text(), outputBytes: outcome.output.total, outputTruncated: outcome.output.truncated,
    peakMemoryBytes: stats.peakMemoryBytes, cpuMs: stats.cpuMs,
    violation: violations.length === 0 ? null : violations.join("; "),
  };
}

async function runOnce(profile: SandboxProfile, options: SandboxOptions, given: RunRequest): Promise<RunResult> {
  const early = requestProblem(given) ?? toolchainProblem(profile);
  if (early !== null) return failedToStart(early);
  const bwrap = profile.backend !== "bwrap" ? null : options.bwrapPath === undefined ? findBwrap() : existsSync(options.bwrapPath) ? options.bwrapPath : null;
  if (profile.backend === "bwrap" && bwrap === null) return failedToStart(`bubblewrap is not installed, so nothing can be measured safely; ${BWRAP_FIX}`);
  // Under bwrap the tree is bounded (./tree-limit.ts): the run sees it through a size-limited overlay.
  let request = given;
  if (profile.backend === "bwrap") {
    try {
      request = { ...given, workdir: boundTree(given.workdir, profile.treeBytes, given.treeLowers).view };
    } catch (err) {
      return failedToStart(`refused: ${(err as Error).message}`);
    }
  }
  const problem = frozenPathProblem(request) ?? placeOverlays(request, profile.backend !== "bwrap");
  if (problem !== null) return failedToStart(problem);

  const mode = options.limits ?? "auto";
  const useCgroup = mode === "cgroup" || (mode === "auto" && cgroupsUsable());
  let cgroup: RunCgroup | null = null;
  if (useCgroup) {
    try {
      cgroup = createRunCgroup(profile);
    } catch (err) {
      return failedToStart(`${(err as Error).message}; run 'ranex doctor'`);
    }
  }
  const scratch = mkdtempSync(join(tmpdir(), "ranex-sbx-"));
  try {
    const shell = ["/bin/sh", "-c", request.command];
    const limited = useCgroup ? shell : [...prlimitPrefix(profile, profile.backend === "bwrap"), ...shell];
    let outcome: LaunchOutcome;
    if (profile.backend === "bwrap" && bwrap !== null) {
      const accounts = generatedAccounts();
      writeFileSync(join(scratch, "passwd"), accounts.passwd);
      writeFileSync(join(scratch, "group"), accounts.group);
      writeFileSync(join(scratch, "hosts"), generatedHosts());
      // Fail closed: without the seccomp filter and the execute-only loader the run does not start.
      let isolation: ProcessIsolation;
      try {
        isolation = openProcessIsolation(scratch, { readableLoader: options.readableLoader === true });
      } catch (err) {
        return failedToStart(`refused: the sandbox cannot keep the run's processes apart (${(err as Error).message}); run 'ranex doctor'`);
      }
      try {
        const args = ["--json-status-fd", "3", ...bwrapArguments(profile, request, { accountsDir: scratch, loaderPath: isolation.loaderPath, linkerScripts: isolation.linkerScripts }, limited)];
        outcome = await launch({
          program: [bwrap, ...args], cwd: scratch, env: { PATH: SANDBOX_PATH }, statusWriter: "bwrap",
          timeoutMs: request.timeoutMs, outputLimitBytes: profile.outputLimitBytes, cgroup, passFds: isolation.fds,
        });
      } finally {
        isolation.close();
      }
      return withTreeLimit(summarise(outcome, cgroup, profile, "exit-code" in outcome.status), given.workdir);
    }
    // backend "none": the same empty environment and limits, without namespaces. Never CANDIDATE material.
    const home = join(scratch, "home");
    const tmp = join(scratch, "tmp");
    mkdirSync(home);
    mkdirSync(tmp);
    outcome = await launch({
      program: limited, cwd: request.workdir, env: { ...request.env, ...baseEnvironment(home, tmp), PATH: toolchainPath(profile, true) }, statusWriter: "self",
      timeoutMs: request.timeoutMs, outputLimitBytes: profile.outputLimitBytes, cgroup,
    });
    return summarise(outcome, cgroup, profile, "child-pid" in outcome.status);
  } finally {
    await cgroup?.destroy();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A run that filled its tree's limit wrote past it (the kernel stopped it with ENOSPC): unsafe. */
function withTreeLimit(result: RunResult, workdir: string): RunResult {
  const over = treeLimitProblem(workdir);
  if (over === null) return result;
  return { ...result, violation: result.violation === null ? over : `${result.violation}; ${over}` };
}

export function createSandbox(profile: SandboxProfile, options: SandboxOptions = {}): Sandbox {
  const frozen: SandboxProfile = Object.freeze({
    ...profile, readonly: Object.freeze([...profile.readonly]) as string[],
    ...(profile.toolchain === undefined ? {} : { toolchain: Object.freeze([...profile.toolchain]) as string[] }),
  });
  return {
    profile: frozen,
    async run(request) {
      // Keyless before anything is spawned: our own environment and arguments, then what we pass in.
      assertKeyless(process.env, process.argv);
      assertKeyless(request.env, [request.command]);
      return runOnce(frozen, options, request);
    },
  };
}
