import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { OutputTail } from "./output.js";
import type { RunCgroup } from "./cgroup.js";

// Starts one process tree and bounds it: joins the run's cgroups *before* exec (so not one fork
// escapes the limits), merges stdout and stderr into one tail, and ends the whole tree at the
// timeout. The tree's own session (--new-session / setsid) hides it from a process-group kill, so
// the pid namespace and the cgroup are what end it; the group kill is a backup.

// $1 = how the start is reported, then cgroup.procs files, then `--`, then the program.
// "self": the wrapper reports on fd 3 and closes it; "bwrap": bwrap reports on fd 3 (--json-status-fd).
const WRAPPER = `mode=$1; shift
while [ "$1" != "--" ]; do
  echo $$ > "$1" 2>/dev/null || { echo "ranex: cannot join the run's cgroup $1" >&2; exit 125; }
  shift
done
shift
if [ "$mode" = self ]; then printf '{ "child-pid": %s }\\n' $$ >&3; exec 3>&-; fi
exec 2>&1
exec "$@"`;

export interface LaunchPlan {
  program: readonly string[];
  cwd: string;
  /** The launched program's own environment (bwrap clears it again for what runs inside). */
  env: Record<string, string>;
  /** Who writes the start/exit status on fd 3. */
  statusWriter: "self" | "bwrap";
  timeoutMs: number;
  outputLimitBytes: number;
  cgroup: RunCgroup | null;
  /** Open files the program gets as fds 4, 5, ... (bwrap reads its seccomp program and data from them). */
  passFds?: readonly number[];
}

export interface LaunchOutcome {
  /** The program's exit code, or null when a signal ended it. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  output: OutputTail;
  /** The raw status lines from fd 3 (`child-pid`, `exit-code`), parsed. */
  status: Record<string, unknown>;
}

const sleep = (ms: number, options: { unref?: boolean } = {}) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  if (options.unref === true) timer.unref();
});

function parseStatus(text: string): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  // bwrap writes one JSON object per line.
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      Object.assign(status, JSON.parse(line) as Record<string, unknown>);
    } catch { /* a torn line tells us nothing */ }
  }
  return status;
}

export async function launch(plan: LaunchPlan): Promise<LaunchOutcome> {
  const started = performance.now();
  const output = new OutputTail(plan.outputLimitBytes);
  let statusText = "";
  const cgroupFiles = plan.cgroup?.procsFiles ?? [];
  const child = spawn("/bin/sh", ["-c", WRAPPER, "ranex-launch", plan.statusWriter, ...cgroupFiles, "--", ...plan.program], {
    cwd: plan.cwd,
    env: plan.env,
    detached: true, // its own process group: the backup kill reaches everything that did not leave it
    stdio: ["ignore", "pipe", "pipe", "pipe", ...(plan.passFds ?? [])],
  });
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
  const statusStream = child.stdio[3] as Readable | null;
  statusStream?.on("data", (chunk: Buffer) => {
    statusText += chunk.toString("utf8");
  });

  const killTree = () => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch { /* already gone */ }
    }
    for (const pid of plan.cgroup?.members() ?? []) {
      try {
        process.kill(pid, "SIGKILL");
      } catch { /* already gone */ }
    }
  };

  let timedOut = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("error", () => resolve({ code: null, signal: null }));
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const timer = setTimeout(() => {
    timedOut = true;
    killTree();
  }, plan.timeoutMs);

  const { code, signal } = await exited;
  clearTimeout(timer);
  const durationMs = Math.round(performance.now() - started);
  // Whatever is left of the tree (a daemon that kept no pipe, say) ends with the run.
  killTree();
  // Output may still be draining; a survivor holding a pipe must not hold us, so bound the wait.
  // The bound's timer must not keep the process alive after the pipes closed (it cost every run a
  // second at exit): unref it.
  await Promise.race([closed, sleep(1000, { unref: true })]);
  for (const stream of [child.stdout, child.stderr, statusStream]) stream?.destroy();

  return { exitCode: code, signal: signal ?? null, timedOut, durationMs, output, status: parseStatus(statusText) };
}
