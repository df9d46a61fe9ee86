import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatIssues, parsePolicy, POLICY_PATH } from "../policy/index.js";
import type { Policy } from "../policy/schema.js";
import { createSandbox } from "../sandbox/index.js";
import type { RunResult } from "../sandbox/types.js";
import { runSuite } from "../measure/run-suite.js";
import type { SuiteRun } from "../measure/report-types.js";
import { openRepository, WorkspaceError, type Repository } from "../workspace/index.js";
import { profileFor } from "./gate-for.js";
import { CannotJudge } from "./judge.js";

// One revision's suite and checks, run exactly as a judgment runs them (same profile, same runSuite,
// same JUnit reading), for the people who write policies and tasks: `ranex init` tries its starter,
// `ranex tests` lists the ids, `ranex task check` measures a task's targets on the base.

export interface RunAtRequest {
  /** Local path or URL of the repository. */
  source: string;
  rev: string;
  dataDir: string;
  /** The policy to run; default: the one on `rev`. */
  policy?: Policy;
  /** Also run the policy's checks (each on the same tree, after the suite). */
  checks?: boolean;
}

export interface RunAt {
  commit: string;
  policy: Policy;
  suite: SuiteRun;
  checks: { name: string; run: string; result: RunResult }[];
  timings: { materialiseMs: number; setupMs: number | null; commandMs: number | null; checksMs: number };
}

const MAX_POLICY_BYTES = 256 * 1024;

export async function runAt(request: RunAtRequest): Promise<RunAt> {
  let repo: Repository;
  let commit: string;
  try {
    repo = await openRepository(request.source, request.dataDir);
    commit = await repo.resolveCommit(request.rev);
  } catch (err) {
    if (err instanceof WorkspaceError) throw new CannotJudge(err.message);
    throw err;
  }
  const policy = request.policy ?? await policyOn(repo, commit);
  if (policy.tests.command === undefined) throw new CannotJudge(`${POLICY_PATH} on ${commit.slice(0, 12)} has no tests.command: there is no suite to run`);
  const sandbox = createSandbox(profileFor(policy));
  const scratch = await mkdtemp(join(tmpdir(), "ranex-run-at-"));
  try {
    const tree = join(scratch, "tree");
    const t0 = Date.now();
    await repo.materialise(commit, tree);
    const materialiseMs = Date.now() - t0;
    const suite = await runSuite(sandbox, {
      label: "head", treeDir: tree, readonly: [], reportDir: join(scratch, "report"), setup: policy.tests.setup,
      command: policy.tests.command, setupNetwork: policy.tests.setup_network, timeout: policy.tests.timeout,
    });
    const checks: RunAt["checks"] = [];
    const t1 = Date.now();
    if (request.checks === true) {
      for (const check of policy.checks) {
        const result = await sandbox.run({ command: check.run, workdir: tree, env: {}, timeoutMs: check.timeout * 1000, network: false });
        checks.push({ name: check.name, run: check.run, result });
      }
    }
    return {
      commit, policy, suite, checks,
      timings: { materialiseMs, setupMs: suite.setup?.durationMs ?? null, commandMs: suite.command?.durationMs ?? null, checksMs: Date.now() - t1 },
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export async function policyOn(repo: Repository, commit: string): Promise<Policy> {
  const blob = await repo.readBlob(commit, POLICY_PATH, MAX_POLICY_BYTES);
  if (blob === null) throw new CannotJudge(`no ${POLICY_PATH} on ${commit.slice(0, 12)}: run 'ranex init' and commit it`);
  const parsed = parsePolicy(blob, POLICY_PATH);
  if (!parsed.ok) throw new CannotJudge(`invalid ${POLICY_PATH} on ${commit.slice(0, 12)}: ${formatIssues(parsed.errors)[0] ?? "unknown error"}`);
  return parsed.policy;
}

/** Why a suite produced no usable report, in one line with the run's exit and its last output line. */
export function suiteProblem(suite: SuiteRun): string | null {
  if (suite.report !== null && suite.reportError === null) return null;
  const run = suite.command ?? suite.setup;
  const stage = suite.command === null ? "setup" : "the test command";
  const exit = run === null ? "" : run.timedOut ? `${stage} timed out` : `${stage} exited with ${run.exitCode ?? run.signal ?? "no status"}`;
  const last = run?.outputTail.trim().split("\n").filter((l) => l.trim() !== "").slice(-3).join(" | ") ?? "";
  return [suite.reportError ?? "no report", exit, last === "" ? "" : `last output: ${last}`].filter((s) => s !== "").join("; ");
}
