import {
  configurationFailure, evaluate, GateError, makeGate, SANDBOX_CLAIM, subjectDigest,
  type Detail, type Evidence, type Subject, type Verdict,
} from "../kernel/index.js";
import { formatIssues, parsePolicy, parseTask, policyDigest, POLICY_PATH, taskPath } from "../policy/index.js";
import type { Policy, Task } from "../policy/schema.js";
import { profileDigest } from "../sandbox/index.js";
import { openRepository, WorkspaceError, type Repository, type SubmoduleAccess } from "../workspace/index.js";
import { MODE_GITLINK, type DiffFact } from "../workspace/types.js";
import { FROZEN_CLAIM, frozenClaim, frozenSet, newTestFiles } from "../measure/diff/index.js";
import { frozenImportsOf, testHelpersOf } from "./test-helpers.js";
import { frozenPathsOn, testFilesOn } from "./frozen-paths.js";
import { measureTests, measurementFailed, type Measured } from "./measure-tests.js";
import type { HunkText } from "../measure/needed/hunk-text.js";
import { conflictReason, diffClaims, diffContext, judgeFromOtherBases, readDiff, resolveChange, withConflictDetails, type Change } from "./change.js";
import { startMeasurer } from "../measure/spawn-measurer.js";
import { idleCoresSince, sampleCpu } from "./idle-cores.js";
import { requiredClaims, needsTestRuns, profileFor } from "./gate-for.js";
import { Stopwatch } from "./stopwatch.js";
import { loadTasks, subjectTask, taskIdsOf } from "./tasks.js";
import { baseAheadDetails, carryBaseAhead } from "./base-ahead.js";
import { prepareSealed } from "./sealed.js";
import { SEALED_CLAIM } from "../measure/tests/sealed.js";

export interface JudgeRequest {
  /** Local path or URL of the repository. */
  source: string;
  /** The base branch's tip (a PR's `base.sha`, or a branch name): policy and task come from it. */
  base: string;
  head: string;
  task: string | null;
  /** Several tasks judged as one change (a merge group): replaces `task` when given (./tasks.ts). */
  tasks?: string[];
  dataDir: string;
  /** Repository identity for the subject; defaults to the source. */
  repository?: string;
  /** Extra `-c key=value` for fetching only (an installation token header); never reaches the measurer. */
  gitConfig?: string[];
  refs?: string[];
  /** Where submodules may be fetched from; default: the operator's environment (docs/operations.md). */
  submodules?: SubmoduleAccess;
  /** Aborting (a newer head superseded this one) ends the measuring process group and rejects. */
  signal?: AbortSignal;
  /**
   * Judge the two trees as given: the diff from base itself, the head measured unmerged. Without
   * it (the default) the diff starts at the merge base and the tests measure head merged into base.
   */
  exactBase?: boolean;
  /** How many cores are idle now (src/judge/idle-cores.ts); tests fix it to make early repeats certain or absent. */
  idleCores?: () => number;
}

export interface Judgment {
  verdict: Verdict;
  evidence: Evidence[];
  /** The pull request's own change: merge base to head. */
  facts: DiffFact[];
  timings: Record<string, number>;
  /**
   * The text of each hunk diff.needed names, bounded, for the verdict page's facts: never part of
   * the signed verdict. Absent or empty when diff.needed was not measured.
   */
  hunkTexts?: HunkText[];
}

/** The repository or a revision could not be read: there is nothing to judge (CLI exit 2). */
export class CannotJudge extends Error {
  override readonly name = "CannotJudge";
}

const MAX_POLICY_BYTES = 256 * 1024;

/** One judgment: read the change from git, measure it keylessly, evaluate. Signing comes after. */
export async function judge(request: JudgeRequest): Promise<Judgment> {
  const clock = new Stopwatch();
  // Whether a core is free beside the head run is read over this judgment's first stages (./idle-cores.ts).
  const cpuAtStart = request.idleCores === undefined ? sampleCpu() : null;
  let repo: Repository;
  let change: Change;
  try {
    repo = await clock.time("fetch", () => openRepository(request.source, request.dataDir, {
      gitConfig: request.gitConfig, refs: request.refs, ...(request.submodules === undefined ? {} : { submodules: request.submodules }),
    }));
    const base = await repo.resolveCommit(request.base);
    const head = await repo.resolveCommit(request.head);
    change = await clock.time("merge", () => resolveChange(repo, base, head, request.exactBase === true));
  } catch (err) {
    if (err instanceof WorkspaceError) throw new CannotJudge(err.message);
    throw err;
  }
  request.signal?.throwIfAborted();
  const { base, head, merge } = change;
  const subject: Subject = {
    repository: request.repository ?? request.source, base, head, baseTree: change.baseTree, headTree: change.headTree,
    mergeBase: change.mergeBase, mergedTree: merge.clean ? merge.tree : null,
    policy: null, task: subjectTask(request), sandbox: null,
  };
  const done = (verdict: Verdict, evidence: Evidence[] = [], facts: DiffFact[] = [], hunkTexts: HunkText[] = []): Judgment =>
    ({ verdict, evidence, facts, timings: clock.timings, hunkTexts });

  // Policy and task come from the base tip only (invariant 7), never from the merge base or head.
  const loaded = await clock.time("policy", () => loadTasks(taskIdsOf(request), (id) => loadConfiguration(repo, base, id)));
  subject.policy = loaded.policyDigest;
  if ("failure" in loaded) return done(configurationFailure(subject, loaded.failure, loaded.details));
  const { policy, task } = loaded;

  let gate;
  const required = requiredClaims(policy, task);
  try {
    gate = makeGate(required);
  } catch (err) {
    if (err instanceof GateError) return done(configurationFailure(subject, err.message));
    throw err;
  }
  const profile = profileFor(policy);
  subject.sandbox = profileDigest(profile);
  // tests.sealed: the sealed file's digest is part of what is judged, so the signed verdict names it.
  const sealed = required.includes(SEALED_CLAIM) ? await prepareSealed(repo, base, task, request.dataDir) : null;
  if (sealed?.digest != null) subject.sealed = sealed.digest;
  const digest = subjectDigest(subject);

  // The measuring process starts now and loads while git work goes on below; it gets its plan later.
  // A merge that conflicts is not measured at all: what would land does not exist yet.
  const runTests = needsTestRuns(required);
  const measuring = runTests || policy.checks.length > 0;
  const measurer = measuring && merge.clean ? startMeasurer() : null;
  const evidence: Evidence[] = [];
  let facts: DiffFact[];
  let hunkTexts: HunkText[] = [];
  try {
    const diffInput = { digest, policy, task, secrets: required.includes("secrets") };
    // The file facts are all the runs need; the diff claims (reading every added line, the secret
    // scan) go on beside the measurement rather than before it.
    const read = await clock.time("diff", () => readDiff(repo, change.mergeBase, head, policy));
    facts = read.facts;
    const planning = diffContext(read, diffInput);
    const claims = clock.time("diff-claims", async () => {
      const own = await diffClaims(repo, read, diffInput);
      const others = change.otherMergeBases.length > 0 ? await judgeFromOtherBases(repo, change, diffInput) : [];
      return { own: own.evidence, others };
    });
    let measured: Promise<Measured> = Promise.resolve({ evidence: [], hunkTexts: [] });
    let frozenImports: ReturnType<typeof frozenImportsOf> | undefined;
    if (measuring && !merge.clean) {
      const reason = conflictReason(change, merge.conflicts);
      measured = Promise.resolve({ evidence: withConflictDetails(measurementFailed({ runTests, task, policy, digest }, reason), merge.conflicts), hunkTexts: [] });
    } else if (measurer !== null && merge.clean) {
      request.signal?.throwIfAborted();
      // The tests measure what would land (the merged tree) against the base tip; the new test
      // files are the pull request's own, from its merge-base diff.
      // A gitlink is a folder in the runs (its submodule's files), never a frozen file to bind read-only.
      const basePaths = (await repo.listFiles(base)).filter((f) => f.mode !== MODE_GITLINK).map((f) => f.path);
      // What the frozen files import, for their helpers (issue 19), is read from the base while the
      // runs go on; an error surfaces where the helpers are judged.
      frozenImports = frozenImportsOf(repo, base, planning.basePaths, (p) => frozenSet(planning).has(p));
      frozenImports.catch(() => undefined);
      measured = measureTests({
        repo: withSubmoduleLimit(repo, policy), base, head: merge.tree, policy, task, profile, digest, dataDir: request.dataDir, clock, measurer,
        facts, newFiles: newTestFiles(planning), frozenTestFiles: testFilesOn(basePaths, planning), frozenPaths: frozenPathsOn(basePaths, planning),
        runTests, signal: request.signal, own: { from: change.mergeBase, to: head },
        idleCores: request.idleCores ?? idleCoresSince(cpuAtStart, () => sampleCpu(measurer.pid === undefined ? [] : [measurer.pid])),
        ...(sealed !== null && "input" in sealed ? { sealed: sealed.input } : {}),
      });
    }
    // Both settle before anything is thrown: a failing diff read never leaves a measurement running.
    const [own, tests] = await Promise.allSettled([claims, measured]);
    if (own.status === "rejected") throw own.reason;
    if (tests.status === "rejected") throw tests.reason;
    // diff.frozen learns the frozen tests' helpers from the base run's record (issue 19): judged again
    // with them once that run is in (the diff claims do not wait for the runs).
    const baseRecord = tests.value.baseRecord;
    const helpers = baseRecord === undefined ? [] : await clock.time("helpers", () => testHelpersOf(
      repo, base, baseRecord, planning.basePaths, (p) => frozenSet(planning).has(p), frozenImports,
    ));
    const withHelpers = helpers.length === 0 ? own.value.own
      : own.value.own.map((e) => (e.claim === FROZEN_CLAIM ? frozenClaim({ ...planning, helpers }) : e));
    evidence.push(...withHelpers, ...own.value.others);
    if (policy.sandbox.backend === "none") evidence.push(unsandboxed(digest));
    evidence.push(...tests.value.evidence);
    if (sealed !== null && "evidence" in sealed && measuring && merge.clean) evidence.push(sealed.evidence(digest));
    hunkTexts = tests.value.hunkTexts;
  } finally {
    await measurer?.dispose();
  }
  // What the base tip has that the head lacks rides on a claim's details for the reviewer's brief.
  const ownPaths = facts.flatMap((f) => (f.oldPath === null ? [f.path] : [f.path, f.oldPath]));
  const carried = carryBaseAhead(evidence, required, baseAheadDetails(base, head, change.ahead, ownPaths));
  const verdict = clock.timeSync("evaluate", () => evaluate(gate, carried, subject, null));
  return done(verdict, carried, facts, hunkTexts);
}

/** Submodules are held to the tree's own limit (`sandbox.tree_mb`), or the default when it names none. */
export function withSubmoduleLimit(repo: Repository, policy: Policy): Repository {
  return policy.sandbox.tree_mb === undefined ? repo : repo.withSubmoduleLimit(policy.sandbox.tree_mb * 1024 * 1024);
}

type Loaded =
  | { policyDigest: string | null; failure: string; details: Detail[] }
  | { policyDigest: string; policy: Policy; task: Task | null };

async function loadConfiguration(repo: Repository, base: string, taskId: string | null): Promise<Loaded> {
  const short = base.slice(0, 12);
  let blob: Buffer | null;
  try {
    blob = await repo.readBlob(base, POLICY_PATH, MAX_POLICY_BYTES);
  } catch (err) {
    return { policyDigest: null, failure: `cannot read ${POLICY_PATH} on ${short}: ${(err as Error).message}`, details: [] };
  }
  if (blob === null) return { policyDigest: null, failure: `no ${POLICY_PATH} on ${short}: absence blocks, add a policy to the base branch`, details: [] };
  const digest = policyDigest(blob);
  const parsed = parsePolicy(blob, POLICY_PATH);
  if (!parsed.ok) {
    const lines = formatIssues(parsed.errors);
    return {
      policyDigest: digest, failure: `invalid ${POLICY_PATH} on ${short}: ${lines[0] ?? "unknown error"}`,
      details: parsed.errors.map((e, i) => ({ message: lines[i] ?? e.message, path: e.file, line: e.line ?? undefined, kind: "policy" })),
    };
  }
  if (taskId === null) return { policyDigest: digest, policy: parsed.policy, task: null };

  let file: string;
  try {
    file = taskPath(taskId);
  } catch (err) {
    return { policyDigest: digest, failure: `invalid task id ${JSON.stringify(taskId)}: ${(err as Error).message}`, details: [] };
  }
  let taskBlob: Buffer | null;
  try {
    taskBlob = await repo.readBlob(base, file, MAX_POLICY_BYTES);
  } catch (err) {
    return { policyDigest: digest, failure: `cannot read ${file} on ${short}: ${(err as Error).message}`, details: [] };
  }
  if (taskBlob === null) return { policyDigest: digest, failure: `no task '${taskId}' on ${short}: ${file} does not exist on the base`, details: [] };
  const task = parseTask(taskBlob, file, taskId);
  if (!task.ok) {
    const lines = formatIssues(task.errors);
    return {
      policyDigest: digest, failure: `invalid ${file}: ${lines[0] ?? "unknown error"}`,
      details: task.errors.map((e, i) => ({ message: lines[i] ?? e.message, path: e.file, line: e.line ?? undefined, kind: "task" })),
    };
  }
  return { policyDigest: digest, policy: parsed.policy, task: task.task };
}

function unsandboxed(digest: string): Evidence {
  return {
    claim: SANDBOX_CLAIM, subject: digest, outcome: "fail", unsafe: true,
    reason: "the policy chose `sandbox: none`: untrusted code ran without isolation, so this change cannot be a CANDIDATE",
    details: [],
  };
}
