import { availableParallelism } from "node:os";
import { rm } from "node:fs/promises";
import { canonicalJson, sha256Hex, type Evidence } from "../kernel/index.js";
import type { Policy, Task } from "../policy/schema.js";
import { profileDigest } from "../sandbox/index.js";
import type { SandboxProfile } from "../sandbox/types.js";
import type { Repository } from "../workspace/index.js";
import type { DiffFact } from "../workspace/types.js";
import { checkClaim, collectTargets, edgesClaim, redGreenClaim, regressionClaim } from "../measure/tests/index.js";
import { flakyIds, headFlakySuspects, outcomesOf, stableClaim } from "../measure/tests/stable.js";
import type { Measurer } from "../measure/spawn-measurer.js";
import type { DepsPlan, MeasureResult, RepeatPlan } from "../measure/plan.js";
import { earlyRepeatIds } from "../measure/repeats.js";
import { canSelect } from "../measure/select.js";
import type { RunName, SuiteRun } from "../measure/report-types.js";
import type { ProvenanceRecord } from "../measure/provenance/record.js";
import { lyingProblems } from "../measure/provenance/judge.js";
import { hiddenTargets } from "../measure/tests/hidden-targets.js";
import { GATE_VERSION } from "../version.js";
import { readBaseCache, writeBaseCache, type BaseCacheKey } from "./base-cache.js";
import { readBaseRepeats, writeBaseRepeats } from "./base-repeats-cache.js";
import { planDependencies } from "./deps-plan.js";
import { coreFreeBeside, idleCores } from "./idle-cores.js";
import { planRuns, type RunPlan } from "./run-plan.js";
import { judgeScratch, removeOrphanedScratch } from "./scratch.js";
import { unmountUnder } from "../sandbox/tree-limit.js";
import type { HunkText } from "../measure/needed/hunk-text.js";
import { codeHunks, neededEvidence, prepareMutants, type PreparedMutants } from "./mutants.js";
import type { Stopwatch } from "./stopwatch.js";
import { sealedClaim } from "../measure/tests/sealed.js";
import { mayHoldMadeIds } from "../measure/tests/made-ids.js";
import type { SealedInput } from "./sealed.js";

export interface MeasureInput {
  repo: Repository;
  /** The base commit the tests compare against (the base tip). */
  base: string;
  /** What to measure as the head: a commit or a tree id (a merge of the head into the base tip). */
  head: string;
  policy: Policy;
  task: Task | null;
  profile: SandboxProfile;
  digest: string;
  dataDir: string;
  clock: Stopwatch;
  facts: readonly DiffFact[];
  /** The PR's new test files, as the caller found them in the diff. */
  newFiles: readonly string[];
  /** The base's test files (frozen): a test of theirs may not vanish on head. */
  frozenTestFiles: readonly string[];
  /** Every frozen path on the base (tests, harness, policy): read-only inside every run. */
  frozenPaths: readonly string[];
  runTests: boolean;
  /** The PR's own change (merge base to head commit): diff.needed's hunks come from it. */
  own?: { from: string; to: string };
  /** The measuring process, already started (it loads while the parent reads git). */
  measurer: Measurer;
  /** tests.sealed: the box as the base holds it, its digest, and the key that goes through the key pipe. */
  sealed?: SealedInput;
  signal?: AbortSignal;
  /** How many cores are idle now (./idle-cores.ts); tests fix it. Early repeats need one free beside the head run. */
  idleCores?: () => number;
}

export interface Measured {
  evidence: Evidence[];
  /** diff.needed's hunks as the verdict page shows them (unsigned, bounded); empty when not measured. */
  hunkTexts: HunkText[];
  /** The base run's provenance record, when it ran with one: the frozen tests' helpers are read from it. */
  baseRecord?: ProvenanceRecord;
}

/**
 * Prepares the trees (git work stays in this process), hands the untrusted work to the keyless
 * measuring process, and turns its raw runs into evidence. Any failure to measure becomes failing
 * evidence with its reason: a judgment never ends without a verdict.
 */
export async function measureTests(input: MeasureInput): Promise<Measured> {
  const { policy, clock } = input;
  // A change that adds a file over the size limit already fails diff.safety; writing it out (a 2 GB
  // blob, say) for a test run would cost disk and time for nothing, so the runs are not made.
  const oversized = input.facts.filter((f) => f.status !== "D" && !f.submodule && f.size !== null && f.size > policy.limits.file_bytes);
  if (oversized.length > 0) {
    const names = oversized.slice(0, 3).map((f) => JSON.stringify(f.path)).join(", ");
    return unmeasured(input, `not measured: the change adds ${oversized.length === 1 ? "a file" : `${oversized.length} files`} over the size limit of ${policy.limits.file_bytes} bytes (${names}${oversized.length > 3 ? ", …" : ""}); see diff.safety`);
  }
  // Submodules are fetched before any tree is written (issue 22): one that cannot be had is the
  // reason, and no tree is left being laid out while a failed one's scratch is removed.
  try {
    await Promise.all([input.repo.submodules(input.base), input.repo.submodules(input.head)]);
  } catch (err) {
    return unmeasured(input, `not measured: ${(err as Error).message}`);
  }
  const scratch = await judgeScratch();
  try {
    const key: BaseCacheKey = {
      baseTree: await input.repo.treeOf(input.base),
      policy: sha256Hex(canonicalJson(policy)), sandbox: profileDigest(input.profile), gate: GATE_VERSION,
    };
    const cachedBase = input.runTests ? await readBaseCache(input.dataDir, key) : null;
    const parallel = Math.max(1, Math.min(4, availableParallelism()));
    const stable = policy.require.includes("tests.stable") && policy.tests.repeat > 1;
    // A warm base run whose ids a run may make up needs its tree for the second run that tells (made-ids.ts).
    const madeIdsPossible = cachedBase !== null && policy.require.includes("tests.regression") && mayHoldMadeIds(cachedBase.report);
    // The base's repeats of the task targets are cached with the base run: a warm judgment makes the head's only.
    const earlyIds = stable ? earlyRepeatIds(input.task?.targets ?? [], input.newFiles) : [];
    const repeatsKey = { ids: earlyIds, count: policy.tests.repeat - 1 };
    const cachedRepeats = cachedBase !== null && earlyIds.length > 0 ? await readBaseRepeats(input.dataDir, key, repeatsKey) : null;
    // Beside the head run only when a core is free for it: on a busy machine it would only slow the head run.
    const early = stable && earlyIds.length > 0 && canSelect(policy.tests)
      && coreFreeBeside((input.idleCores ?? idleCores)());
    // diff.needed's mutants compare with the full run of the tree they copy (head+new when the PR adds test files).
    const mutantsPlanned = input.runTests && policy.require.includes("diff.needed") && input.own !== undefined;
    // The head's copy pays off only when a core would otherwise wait while the head runs.
    const mainRuns = 1 + (cachedBase === null ? 1 : 0) + (input.newFiles.length > 0 ? 2 : 0);
    let plan;
    let deps: DepsPlan | undefined;
    try {
      [plan, deps] = await clock.time("materialise", () => Promise.all([
        planRuns({
          repo: input.repo, base: input.base, head: input.head, scratch, runTests: input.runTests,
          newFiles: input.newFiles, changed: changedPaths(input.facts), frozenPaths: input.frozenPaths, cachedBase, baseTreeForRepeats: stable || madeIdsPossible,
          headCopyForRepeats: early && mainRuns < parallel,
          // The checks always get a copy of their own (a verdict never depends on the cache).
          checks: policy.checks.length > 0,
          // The PR's own runs read only its new test files' tests: only those run, where the runner can select them.
          selectNew: { headNew: !mutantsPlanned, baseNew: true },
          sealedTrees: input.sealed !== undefined,
        }),
        input.runTests ? planDependencies({
          repo: input.repo, base: input.base, policy, profile: input.profile, dataDir: input.dataDir, scratch, frozenPaths: input.frozenPaths,
        }) : Promise.resolve(undefined),
      ]));
    } catch (err) {
      // A tree that cannot be written out safely (a `..` path, a write through a link) is a FAIL
      // with its reason, signed like any other, not a judgment that ends without a verdict.
      return unmeasured(input, `not measured: the trees could not be laid out safely: ${(err as Error).message}`);
    }
    if (cachedBase !== null) clock.record("base-cached", 0);
    let mutants: PreparedMutants | null = null;
    if (mutantsPlanned && input.own !== undefined) {
      // Copied before anything runs: a mutant starts from the tree as git wrote it.
      const of = input.newFiles.length > 0 ? "head+new" : "head";
      const tree = plan.trees[of];
      const own = input.own;
      if (tree !== undefined) {
        mutants = await clock.time("mutants-prepare", async () => {
          const found = await codeHunks({
            repo: input.repo, from: own.from, to: own.to, facts: input.facts, policy,
            testFiles: new Set([...input.newFiles, ...input.frozenTestFiles]), frozenPaths: new Set(input.frozenPaths),
          });
          return prepareMutants(found.hunks, found.skipped, policy.needed.max_hunks, of, tree, scratch, canSelect(policy.tests));
        });
      }
    }

    let result: MeasureResult;
    try {
      result = await clock.time("measure", () => input.measurer.measure({
        policy, profile: input.profile, runs: plan.runs, checksTree: plan.checksTree, scratchDir: scratch,
        checks: policy.checks.map((c) => ({ name: c.name, run: c.run, timeout: c.timeout })),
        parallel,
        repeats: {
          count: stable ? policy.tests.repeat - 1 : 0, taskTargets: [...input.task?.targets ?? []], newFiles: [...input.newFiles],
          trees: Object.fromEntries(Object.entries(plan.trees).map(([name, t]) => [name, { ...t, setupFirst: name === "base" && cachedBase !== null }])),
          ...(early ? { early: earlyTrees(plan, cachedBase !== null && cachedRepeats === null) } : {}),
          ...(cachedRepeats === null ? {} : { cached: { base: { ids: earlyIds, runs: cachedRepeats } } }),
        },
        ...(mutants === null ? {} : {
          needed: { mutants: mutants.specs, selectionTree: mutants.selectionTree, taskTargets: [...input.task?.targets ?? []], newFiles: [...input.newFiles] },
        }),
        ...(deps === undefined ? {} : { deps }),
        ...(input.sealed === undefined || plan.sealed === undefined ? {} : { sealed: { box: input.sealed.box, ...plan.sealed } }),
      }, input.signal, input.sealed === undefined ? undefined : { sealKey: input.sealed.secretKey }));
    } catch (err) {
      // An abort is not a measurement result: the caller decides what a superseded judgment says.
      if (input.signal?.aborted === true) throw err;
      return unmeasured(input, `could not measure: ${(err as Error).message}`);
    }
    for (const [stage, ms] of Object.entries(result.timings)) clock.record(stage.replace(/^run:/, ""), ms);
    const base = result.runs.base;
    const baseCached = cachedBase !== null || (base !== undefined && await writeBaseCache(input.dataDir, key, base) === null);
    // The base's repeats of exactly the task targets (none after a decided verdict), once the base run itself is cached.
    if (baseCached && cachedRepeats === null && earlyIds.length > 0 && result.stopped === undefined) {
      await writeBaseRepeats(input.dataDir, key, repeatsKey, result.repeats?.base ?? []);
    }
    // The repository's own packages: an installed distribution of the same name is not shadowed by them.
    const baseFiles = new Set((await input.repo.listFiles(input.base).catch(() => [])).map((f) => f.path));
    const baseRecord = base?.provenance?.placed.length ? base.provenance.record : undefined;
    // Targets absent on the base that its text holds behind a cargo feature the command leaves off.
    const read = async (path: string): Promise<string | null> => (await input.repo.readBlob(input.base, path, 4 * 1024 * 1024).catch(() => null))?.toString("utf8") ?? null;
    const hidden = await hiddenTargets(input.task?.targets ?? [], base?.report ?? null, input.policy.tests.command ?? "", { files: baseFiles, read });
    return { ...evidenceFrom(input, result, mutants, baseFiles, hidden), ...(baseRecord === undefined ? {} : { baseRecord }) };
  } finally {
    // Timed: removing the trees (a JVM build's target/ folders) is part of what a judgment costs.
    await clock.time("cleanup", async () => {
      // A measurer killed before its exit (superseded, aborted) left its trees mounted: swept first.
      await removeOrphanedScratch();
      unmountUnder(scratch);
      // A tree still being written when another's failure ended the plan: retried, never a crash.
      await rm(scratch, { recursive: true, force: true, maxRetries: 3 });
    });
  }
}

/** The paths the change added or changed (a rename's new path), as the diff's facts have them: what the head holds of the PR's. */
function changedPaths(facts: readonly DiffFact[]): string[] {
  return facts.filter((f) => f.status !== "D").map((f) => f.path);
}

/** The trees no main run uses: the cached base's, and the head's copy when one was laid out. */
function earlyTrees(plan: RunPlan, baseCached: boolean): RepeatPlan["early"] {
  const early: NonNullable<RepeatPlan["early"]> = {};
  if (baseCached && plan.trees.base !== undefined) early.base = { ...plan.trees.base, setupFirst: true };
  if (plan.headCopy !== undefined) early.head = { ...plan.headCopy, setupFirst: true };
  return early;
}

function evidenceFrom(input: MeasureInput, result: MeasureResult, mutants: PreparedMutants | null, baseFiles: ReadonlySet<string>, hidden: ReadonlyMap<string, string>): Measured {
  const evidence: Evidence[] = result.checks.map((c) => checkClaim(input.digest, c.name, c.run));
  let hunkTexts: HunkText[] = [];
  if (!input.runTests) return { evidence, hunkTexts };
  const run = (name: RunName): SuiteRun => result.runs[name] ?? missingRun(name);
  const withNew = input.newFiles.length > 0;
  const runs = {
    base: run("base"), head: run("head"),
    baseNew: withNew ? run("base+new") : null, headNew: withNew ? run("head+new") : null,
  };
  const targets = collectTargets(input.task?.targets ?? [], input.newFiles, runs.head, runs.headNew);
  const repeats = (name: RunName): SuiteRun[] => result.repeats?.[name] ?? [];
  // A test whose outcome changes between repeats of the base is flaky there: not the PR's regression.
  const flakyOnBase = new Set(flakyIds([runs.base, ...repeats("base")]));
  // Repeats and mutants are not started once the verdict was decided (src/measure/decided.ts): their
  // claims then say so, rather than pass on runs never made.
  const stopped = result.stopped;
  // A suspect flaky on the head (passed in every base run) is tests.stable's to fail when it judges.
  const baseRuns = [runs.base, ...repeats("base")];
  const headRuns = [runs.head, ...repeats("head")];
  const suspectRepeats = {
    outcomes: (id: string) => {
      const seen = { base: outcomesOf(id, baseRuns), head: outcomesOf(id, headRuns) };
      return seen.base.length > 1 || seen.head.length > 1 ? seen : null;
    },
    stableJudges: stopped === undefined && input.policy.require.includes("tests.stable"),
    baseAgain: result.baseAgain ?? null,
  };
  // The head run's provenance is judged against what the change committed (issue 19).
  const changed = new Set(changedPaths(input.facts));
  const provenance = { changed, frozen: new Set([...input.frozenPaths, ...input.frozenTestFiles]), baseFiles };
  evidence.push(regressionClaim(input.digest, runs.base, runs.head, targets, input.frozenTestFiles, flakyOnBase, provenance, suspectRepeats));
  evidence.push(redGreenClaim(input.digest, runs, targets, (r) => lyingProblems(r, provenance, new Set(input.newFiles)), hidden));
  if (stopped !== undefined) {
    for (const claim of ["tests.stable", "diff.needed"].filter((c) => input.policy.require.includes(c))) {
      evidence.push({ claim, subject: input.digest, outcome: "absent", reason: `not measured: ${stopped}`, details: [] });
    }
  }
  if (stopped === undefined && input.policy.require.includes("tests.stable")) evidence.push(stableClaim(input.digest, targets, (t) => {
    const own = t.origin === "new-file" && withNew;
    const red: RunName = own ? "base+new" : "base";
    const green: RunName = own ? "head+new" : "head";
    return { base: [run(red), ...repeats(red)], head: [run(green), ...repeats(green)] };
  }, input.policy.tests.repeat, headFlakySuspects(baseRuns, headRuns, targets)));
  if (stopped === undefined && input.policy.require.includes("diff.needed")) {
    if (mutants === null) {
      evidence.push({ claim: "diff.needed", subject: input.digest, outcome: "fail", reason: "the mutants could not be prepared", details: [] });
    } else {
      const needed = neededEvidence(input.digest, mutants, result.mutants ?? [], run(mutants.of), runs.base, targets, result.mutantSelection);
      evidence.push(needed.evidence);
      hunkTexts = needed.texts;
    }
  }
  if (input.task !== null && input.task.edges.length > 0) evidence.push(edgesClaim(input.digest, input.task, runs.head));
  if (input.sealed !== undefined) {
    evidence.push(sealedClaim(input.digest, result.sealed ?? { opened: false, reason: "the measuring process made no sealed runs" }, input.sealed.digest));
  }
  return { evidence, hunkTexts };
}

function unmeasured(input: MeasureInput, reason: string): Measured {
  return { evidence: measurementFailed(input, reason), hunkTexts: [] };
}

export function measurementFailed(input: Pick<MeasureInput, "runTests" | "task" | "policy" | "digest">, reason: string): Evidence[] {
  const names = input.runTests ? ["tests.regression", "tests.red_green", "tests.stable"] : [];
  if (input.runTests && input.policy.require.includes("diff.needed")) names.push("diff.needed");
  if (input.runTests && input.task !== null && input.task.edges.length > 0) names.push("edges.covered");
  if (input.runTests && input.policy.require.includes("tests.sealed")) names.push("tests.sealed");
  for (const check of input.policy.checks) names.push(`check:${check.name}`);
  return names.map((claim) => ({ claim, subject: input.digest, outcome: "fail", reason, details: [] }));
}

function missingRun(label: RunName): SuiteRun {
  return { label, setup: null, command: null, report: null, reportError: `the ${label} run did not happen` };
}
