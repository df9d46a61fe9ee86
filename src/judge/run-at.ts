import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatIssues, parsePolicy, POLICY_PATH } from "../policy/index.js";
import type { Policy } from "../policy/schema.js";
import type { RunResult } from "../sandbox/types.js";
import type { MeasurePlan } from "../measure/plan.js";
import type { SuiteRun } from "../measure/report-types.js";
import { startMeasurer } from "../measure/spawn-measurer.js";
import { openRepository, WorkspaceError, type Repository, type SubmoduleAccess } from "../workspace/index.js";
import { MODE_GITLINK } from "../workspace/types.js";
import { planDependencies } from "./deps-plan.js";
import { frozenPathsOf } from "./frozen-paths.js";
import { testHelpersOf } from "./test-helpers.js";
import type { FrozenHelper } from "../measure/diff/frozen-helpers.js";
import { profileFor } from "./gate-for.js";
import { CannotJudge, withSubmoduleLimit } from "./judge.js";
import { presentFrozen } from "./run-plan.js";
import { unmountUnder } from "../sandbox/tree-limit.js";

// One revision's suite and checks, run exactly as a judgment runs its head (same profile, the same
// keyless measuring process, frozen paths read-only, the dependencies from the same once-only cache
// under the data dir, the canary, checks on a tree of their own), for the people who write policies
// and tasks: `ranex init` tries its starter, `ranex tests` lists the ids, `ranex task check`
// measures a task's targets on the base. What a try installs, a later judgment finds cached.

export interface RunAtRequest {
  /** Local path or URL of the repository. */
  source: string;
  rev: string;
  dataDir: string;
  /** The policy to run; default: the one on `rev`. */
  policy?: Policy;
  /** Also run the policy's checks (on a copy of the revision of their own, as a judgment does). */
  checks?: boolean;
  /** Where submodules may be fetched from; default: the operator's environment. */
  submodules?: SubmoduleAccess;
}

export interface RunAt {
  commit: string;
  policy: Policy;
  suite: SuiteRun;
  checks: { name: string; run: string; result: RunResult }[];
  /**
   * The frozen tests' helpers (issue 19), read from this run's provenance record as a judgment reads
   * its base run's: modules outside the test globs that frozen files imported and that assert.
   */
  helpers: FrozenHelper[];
  /** `setupMs`: the once-only setup when it ran now (null: none, or the dependencies came from the cache, `suite.deps.hit`). */
  timings: { materialiseMs: number; setupMs: number | null; commandMs: number | null; checksMs: number };
}

const MAX_POLICY_BYTES = 256 * 1024;

export async function runAt(request: RunAtRequest): Promise<RunAt> {
  let repo: Repository;
  let commit: string;
  try {
    repo = await openRepository(request.source, request.dataDir, request.submodules === undefined ? {} : { submodules: request.submodules });
    commit = await repo.resolveCommit(request.rev);
  } catch (err) {
    if (err instanceof WorkspaceError) throw new CannotJudge(err.message);
    throw err;
  }
  const policy = request.policy ?? await policyOn(repo, commit);
  if (policy.tests.command === undefined) throw new CannotJudge(`${POLICY_PATH} on ${commit.slice(0, 12)} has no tests.command: there is no suite to run`);
  const profile = profileFor(policy);
  repo = withSubmoduleLimit(repo, policy);
  const measurer = startMeasurer();
  const scratch = await mkdtemp(join(tmpdir(), "ranex-run-at-"));
  try {
    const t0 = Date.now();
    // Submodules first (issue 22): one that cannot be had is said before any tree is laid out.
    await repo.submodules(commit).catch((err: unknown) => {
      if (err instanceof WorkspaceError) throw new CannotJudge(err.message);
      throw err;
    });
    const paths = (await repo.listFiles(commit)).filter((f) => f.mode !== MODE_GITLINK).map((f) => f.path);
    const frozenPaths = frozenPathsOf(paths, policy);
    const tree = join(scratch, "tree-head");
    const checksDir = join(scratch, "tree-checks");
    const withChecks = request.checks === true && policy.checks.length > 0;
    const [, , deps] = await Promise.all([
      repo.materialise(commit, tree),
      // As in a judgment, the checks get a tree of their own: what they write never reaches the tests.
      withChecks ? repo.materialise(commit, checksDir) : Promise.resolve(),
      planDependencies({ repo, base: commit, policy, profile, dataDir: request.dataDir, scratch, frozenPaths }),
    ]).catch((err: unknown) => {
      // A submodule that cannot be had, or a tree that cannot be written safely: said, not a crash.
      if (err instanceof WorkspaceError) throw new CannotJudge(err.message);
      throw err;
    });
    const materialiseMs = Date.now() - t0;
    const checks = withChecks ? policy.checks.map((c) => ({ name: c.name, run: c.run, timeout: c.timeout })) : [];
    const plan: MeasurePlan = {
      policy, profile, scratchDir: scratch, checks, parallel: 1,
      checksTree: withChecks ? { treeDir: checksDir, readonly: await presentFrozen(checksDir, frozenPaths) } : null,
      runs: [{
        name: "head", purpose: "the revision's suite, as a judgment runs its head", treeDir: tree,
        // No pull request: nothing of the tree is a change's, as on a judgment's base; the registration
        // watch still holds what the run writes (src/runners/registration-guard.ts).
        readonly: await presentFrozen(tree, frozenPaths), changed: [], canary: true, priority: 0, cached: null,
      }],
      ...(deps === undefined ? {} : { deps }),
    };
    let result;
    try {
      result = await measurer.measure(plan);
    } catch (err) {
      throw new CannotJudge(`could not measure: ${(err as Error).message}`);
    }
    const suite = result.runs.head ?? { label: "head", setup: null, command: null, report: null, reportError: "the run did not happen" };
    const frozen = new Set(frozenPaths);
    const record = suite.provenance?.placed.length ? suite.provenance.record : undefined;
    const helpers = record === undefined ? [] : await testHelpersOf(repo, commit, record, paths, (p) => frozen.has(p));
    const checksMs = Object.entries(result.timings).filter(([stage]) => stage.startsWith("check:")).reduce((sum, [, ms]) => sum + ms, 0);
    return {
      commit, policy, suite, helpers,
      checks: result.checks.map((c) => ({ name: c.name, run: policy.checks.find((p) => p.name === c.name)?.run ?? "", result: c.run })),
      timings: {
        materialiseMs,
        setupMs: suite.deps !== undefined ? (suite.deps.hit ? null : suite.deps.setupMs) : suite.setup?.durationMs ?? null,
        commandMs: suite.command?.durationMs ?? null, checksMs,
      },
    };
  } finally {
    await measurer.dispose();
    unmountUnder(scratch);
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
