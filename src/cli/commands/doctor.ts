import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { cargoFolder } from "../../runners/cargo.js";
import { findBinary, toolchainFor } from "../../runners/toolchain.js";
import { UsageError, type CliIo, type Command } from "../io.js";
import { formatIssues, parsePolicy } from "../../policy/index.js";
import { assertKeyless, cgroupSupport, createSandbox, findBwrap, KeylessError, type RunResult } from "../../sandbox/index.js";
import { releaseTree } from "../../sandbox/tree-limit.js";

// `ranex doctor`: can this machine measure untrusted code safely? Each check prints ok / FAIL (or
// warn for the optional ones) with a one-sentence fix. Exit 0 only when every required check passes,
// so it can gate a deployment.

const execFileAsync = promisify(execFile);

export interface DoctorCheck {
  name: string;
  ok: boolean;
  /** A failed optional check is a warning: some repositories need it, the sandbox does not. */
  required: boolean;
  detail: string;
  fix?: string;
}

export interface DoctorOptions {
  /** Where bwrap is (tests point it at a path that does not exist). Default: the usual install paths. */
  bwrapPath?: string;
  /** The policy's toolchain.path: the probes below see what the policy's runs would see. */
  toolchain?: string[];
}

/** The tools a run may call, as the sandbox finds them on its PATH. */
export const TOOLS: readonly string[] = ["python3", "pytest", "node", "npm", "npx", "vitest", "jest", "mocha", "pnpm", "yarn", "go", "cargo", "java", "mvn"];
// `go` has no --version: its `version` answers instead.
const TOOLS_PROBE = `for t in ${TOOLS.join(" ")}; do p=$(command -v "$t") && echo "$t $p $({ "$t" --version 2>/dev/null || "$t" version; } 2>&1 | head -n 1)"; done; true`;

const PROBE_PROFILE = { backend: "bwrap" as const, readonly: [], memoryBytes: 512 * 1024 * 1024, maxProcesses: 64, outputLimitBytes: 8192 };

async function probe(bwrapPath: string, command: string, toolchain: string[] = []): Promise<RunResult | string> {
  const workdir = mkdtempSync(join(tmpdir(), "ranex-doctor-"));
  try {
    const profile = toolchain.length === 0 ? PROBE_PROFILE : { ...PROBE_PROFILE, toolchain };
    return await createSandbox(profile, { bwrapPath }).run({ command, workdir, env: {}, timeoutMs: 30_000, network: false });
  } catch (err) {
    return err instanceof KeylessError ? err.message : `the probe could not run: ${(err as Error).message}`;
  } finally {
    releaseTree(workdir);
    rmSync(workdir, { recursive: true, force: true });
  }
}

export async function doctorChecks(env: CliIo["env"], options: DoctorOptions = {}): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const bwrap = options.bwrapPath ?? findBwrap();
  if (bwrap === null || !existsSync(bwrap)) {
    checks.push({ name: "bubblewrap", ok: false, required: true, detail: `not found${bwrap === null ? "" : ` at ${bwrap}`}`, fix: "apt-get install -y bubblewrap" });
    // Everything below runs inside bwrap: say so rather than leave the checks out.
    for (const name of ["namespaces", "capabilities dropped"]) checks.push({ name, ok: false, required: true, detail: "not checked: bubblewrap is missing" });
    return checks;
  }
  const version = await execFileAsync(bwrap, ["--version"], { env: {} }).then((r) => r.stdout.trim(), (err: Error) => `unusable: ${err.message}`);
  const usable = !version.startsWith("unusable");
  checks.push({ name: "bubblewrap", ok: usable, required: true, detail: `${bwrap} (${version})`, ...(usable ? {} : { fix: "reinstall bubblewrap (apt-get install -y --reinstall bubblewrap)" }) });
  if (!usable) return checks;

  try {
    assertKeyless(env, []);
    checks.push({ name: "keyless environment", ok: true, required: false, detail: "no signing key, token, webhook secret or database URL in the environment" });
  } catch (err) {
    checks.push({ name: "keyless environment", ok: false, required: false, detail: (err as Error).message, fix: "start measuring processes (ranex judge, workers) without secrets in their environment" });
  }

  const inside = await probe(bwrap, "id -u; grep -E '^CapEff:' /proc/self/status");
  if (typeof inside === "string" || inside.violation !== null || inside.exitCode !== 0) {
    const why = typeof inside === "string" ? inside : inside.violation ?? inside.outputTail.trim();
    checks.push({ name: "namespaces", ok: false, required: true, detail: why, fix: "allow user namespaces (sysctl -w kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0)" });
    return checks;
  }
  checks.push({ name: "namespaces", ok: true, required: true, detail: "user, pid, net, ipc, uts, cgroup and mount namespaces created" });
  const [uid, capLine] = inside.outputTail.trim().split("\n");
  const capsDropped = uid === "65534" && /^CapEff:\s+0+$/.test(capLine ?? "");
  checks.push({
    name: "capabilities dropped", ok: capsDropped, required: true, detail: capsDropped ? "uid 65534, CapEff 0" : `uid ${uid ?? "?"}, ${capLine ?? "no CapEff"}`,
    ...(capsDropped ? {} : { fix: "use bubblewrap 0.4 or newer, which supports --cap-drop ALL" }),
  });

  const cgroup = cgroupSupport();
  const prlimit = existsSync("/usr/bin/prlimit");
  const asRoot = process.getuid?.() === 0;
  checks.push({
    name: "memory and process limits",
    ok: cgroup.ok || prlimit,
    required: true,
    detail: cgroup.ok
      ? "cgroup v1 (pids, memory, cpuacct): limits, peak memory and CPU time per run"
      : prlimit
        ? `prlimit fallback (${cgroup.reason})${asRoot ? "; as root the process limit is NOT enforced, only address space" : ""}`
        : `no cgroup (${cgroup.reason}) and no prlimit`,
    ...(cgroup.ok || prlimit ? {} : { fix: "install util-linux (prlimit), or give the judge a writable cgroup v1 hierarchy" }),
  });

  const toolchain = options.toolchain ?? [];
  const python = await probe(bwrap, "command -v python3 && python3 -c 'import pytest; print(\"pytest\", pytest.__version__)'", toolchain);
  const pythonOk = typeof python !== "string" && python.exitCode === 0 && python.outputTail.startsWith("/");
  checks.push({
    name: "python3 + pytest (in sandbox)", ok: pythonOk, required: false,
    detail: typeof python === "string" ? python : python.outputTail.trim().replace(/\n/g, ", ") || "not found",
    ...(pythonOk ? {} : { fix: "apt-get install -y python3 python3-pytest (for Python repositories)" }),
  });
  const node = await probe(bwrap, "command -v node && node --version", toolchain);
  const nodeOk = typeof node !== "string" && node.exitCode === 0 && node.outputTail.startsWith("/");
  checks.push({
    name: "node (in sandbox)", ok: nodeOk, required: false,
    detail: typeof node === "string" ? node : node.outputTail.trim().replace(/\n/g, " ") || "not found",
    ...(nodeOk ? {} : { fix: "install Node.js under /usr (apt-get install -y nodejs), or name its bin directory in toolchain.path" }),
  });
  checks.push(await toolsCheck(bwrap, toolchain));
  const outside = compilersOutside(toolchain);
  if (outside.length > 0) {
    checks.push({
      name: "compilers outside the sandbox's PATH", ok: false, required: false,
      detail: outside.map((c) => `${c.tool} is in ${c.dir}`).join("; "),
      fix: `for Go or Rust repositories, name ${outside.map((c) => c.dir).join(", ")} in toolchain.path (ranex init does when it finds go.mod or Cargo.toml)`,
    });
  }
  return checks;
}

/** Go and cargo (rustup's resolved toolchain) found on this machine where the sandbox's PATH does not look. */
function compilersOutside(toolchain: readonly string[]): { tool: string; dir: string }[] {
  const found = [
    { tool: "go", dirs: toolchainFor(findBinary("go", ["/usr/local/go/bin"])) },
    { tool: "cargo", dirs: toolchainFor(cargoFolder(process.cwd())) },
  ];
  return found.flatMap(({ tool, dirs }) => dirs.filter((dir) => !toolchain.includes(dir)).map((dir) => ({ tool, dir })));
}

/** Which runners the sandbox sees, and their versions: the ones a policy's command will run. */
async function toolsCheck(bwrap: string, toolchain: string[]): Promise<DoctorCheck> {
  const result = await probe(bwrap, TOOLS_PROBE, toolchain);
  const path = toolchain.length === 0 ? "PATH /usr/local/bin:/usr/bin:/bin" : `PATH ${toolchain.join(":")} first`;
  if (typeof result === "string" || result.violation !== null) {
    return { name: "tools (in sandbox)", ok: false, required: false, detail: typeof result === "string" ? result : result.violation ?? "", fix: "check toolchain.path in the policy" };
  }
  const lines = result.outputTail.trim().split("\n").filter((line) => line !== "");
  return {
    name: "tools (in sandbox)", ok: lines.length > 0, required: false,
    detail: `${path}\n${lines.map((line) => `        ${line}`).join("\n")}`,
    fix: "name the directories of your python, node or test runner in toolchain.path (docs/policy.md)",
  };
}

export function formatCheck(check: DoctorCheck): string {
  const status = check.ok ? "ok  " : check.required ? "FAIL" : "warn";
  return `${status}  ${check.name}: ${check.detail}${check.ok || check.fix === undefined ? "" : `\n      fix: ${check.fix}`}\n`;
}

const USAGE = "usage: ranex doctor [--policy <.github/ranex.yml>] [--toolchain <dir>]...";

/** `--policy` reads the toolchain from a policy file; `--toolchain` names directories directly. */
function toolchainFrom(args: string[], cwd: string): string[] {
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options: { policy: { type: "string" }, toolchain: { type: "string", multiple: true } } }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; ${USAGE}`);
  }
  const dirs = (values.toolchain ?? []).map((dir) => resolve(cwd, dir));
  if (values.policy !== undefined) {
    const file = resolve(cwd, values.policy);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
    }
    const parsed = parsePolicy(text, values.policy);
    if (!parsed.ok) throw new UsageError(`${file} does not validate: ${formatIssues(parsed.errors)[0] ?? ""}`);
    dirs.unshift(...parsed.policy.toolchain.path);
  }
  return dirs;
}

export async function runDoctor(args: string[], io: CliIo, options: DoctorOptions = {}): Promise<number> {
  const toolchain = toolchainFrom(args, io.cwd);
  const checks = await doctorChecks(io.env, { ...options, ...(toolchain.length > 0 ? { toolchain } : {}) });
  for (const check of checks) io.stdout(formatCheck(check));
  const failed = checks.filter((check) => check.required && !check.ok);
  io.stdout(failed.length === 0 ? "ranex doctor: this machine can sandbox measurements\n" : `ranex doctor: ${failed.length} required check(s) failed\n`);
  return failed.length === 0 ? 0 : 1;
}

export const run: Command = (args, io) => runDoctor(args, io);
