// The runs after the main ones: repeats of the target tests (tests.stable) and of the tests that
// passed on base and failed on head (regression suspects: flaky on base is not the PR's doing). Runs
// in the measuring process, which alone knows the main results; diff.needed's mutants are mutants.ts.
//
// A repeat reuses the tree of the run it repeats, one repeat after another on that tree: a test that
// leaves state behind in its own tree and then answers differently is exactly the flakiness the claim
// is about, and no copy of a large tree is made. Different trees repeat in parallel.
//
// Early repeats: the task's targets are known before anything runs. When a core would otherwise wait
// (the base came from the cache, so only the head runs), their repeats start at once, beside the main
// run: on the cached base's own tree, and on a pristine copy of the head (the main head tree is in use).
// On that copy the repeats still follow one another, so state a test leaves behind still shows. Only
// what is left (regression suspects, the PR's own tests) repeats after the main runs. The PR's own
// tests, when its own run selected its new test files, repeat right after that run (fileRepeats).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Sandbox } from "../sandbox/index.js";
import type { MeasurePlan, RepeatTree } from "./plan.js";
import type { RunName, SuiteRun } from "./report-types.js";
import type { PreparedDependencies } from "./deps/prepare.js";
import { runSuite } from "./run-suite.js";
import { filesSelectionFor, filesUnproven, selectionFor, selectionList, selectionUnproven } from "./select.js";
import { collectTargets } from "./tests/targets.js";
import { fileOfId, isGreen } from "./tests/run-facts.js";
import { filesToRunAgain } from "./tests/made-ids.js";

/** Repeats already made, per side, and the ids they ran; `cached`: read from the base cache, made on no tree here. */
export type RepeatsDone = Partial<Record<RunName, { ids: string[]; runs: SuiteRun[]; cached?: true }>>;

/** Which ids each run's tree must repeat: targets on the sides they are read from, and suspects. */
export function repeatIds(taskTargets: readonly string[], newFiles: readonly string[], runs: Partial<Record<RunName, SuiteRun>>): Map<RunName, string[]> {
  const ids = new Map<RunName, Set<string>>();
  const add = (name: RunName, id: string): void => {
    if (runs[name] === undefined) return;
    ids.set(name, (ids.get(name) ?? new Set()).add(id));
  };
  const head = runs.head;
  if (head === undefined) return new Map();
  const headNew = runs["head+new"] ?? null;
  for (const target of collectTargets(taskTargets, newFiles, head, headNew)) {
    const own = target.origin === "new-file" && headNew !== null;
    add(own ? "base+new" : "base", target.id);
    add(own ? "head+new" : "head", target.id);
  }
  // Passed on base, not green on head: repeated on both sides, so a flaky base is not blamed on the PR.
  const onHead = new Map((head.report?.cases ?? []).map((c) => [c.id, c]));
  for (const before of runs.base?.report?.cases ?? []) {
    const after = onHead.get(before.id);
    if (isGreen(before) && after !== undefined && !isGreen(after)) {
      add("base", before.id);
      add("head", before.id);
    }
  }
  return new Map([...ids].map(([name, set]) => [name, [...set].sort()]));
}

/** The task targets a side's early repeats run: those not in a file the PR adds (those are its own tests). */
export function earlyRepeatIds(taskTargets: readonly string[], newFiles: readonly string[]): string[] {
  const added = new Set(newFiles);
  return [...new Set(taskTargets.filter((id) => !added.has(fileOfId(id))))].sort();
}

/**
 * The early repeats as jobs, one per idle tree, for the measuring process's worker pool to take when
 * a worker has no main run left. Each job records what it ran in `done`.
 */
export function earlyRepeatJobs(
  sandbox: Sandbox, plan: MeasurePlan, deps: PreparedDependencies | undefined, done: RepeatsDone, stopped: () => string | null = () => null,
): (() => Promise<void>)[] {
  const repeats = plan.repeats;
  if (repeats === undefined || repeats.count < 1 || repeats.early === undefined) return [];
  const ids = earlyRepeatIds(repeats.taskTargets, repeats.newFiles);
  if (ids.length === 0) return [];
  // A side whose repeats came from the base cache has none to make.
  const todo = (Object.entries(repeats.early) as [RunName, RepeatTree][]).filter(([name]) => name !== "base" || repeats.cached?.base === undefined);
  return todo.map(([name, tree]) => async () => {
    done[name] = { ids, runs: await repeatOn(sandbox, plan, name, tree, ids, "e", deps, false, stopped) };
  });
}

/**
 * The repeats of the PR's own tests right after its own run selected its new test files (`head+new`
 * or `base+new` with `selectedFiles`): the same files, `count` more times, one after another on that
 * tree, without waiting for the other main runs, since the files are known before any id is. Each
 * speaks only of the ids those files held in that run. Null when there is nothing to repeat so, or a
 * repeat did not prove its selection: then none of them is read, and the tests repeat by id after
 * the main runs as before.
 */
export async function fileRepeats(
  sandbox: Sandbox, plan: MeasurePlan, main: SuiteRun, tree: { treeDir: string; readonly: string[] }, deps: PreparedDependencies | undefined,
  stopped: () => string | null, green?: SuiteRun,
): Promise<{ ids: string[]; runs: SuiteRun[] } | null> {
  const count = plan.repeats?.count ?? 0;
  const files = main.selectedFiles;
  if (count < 1 || files === undefined || main.report === null) return null;
  const inFiles = new Set(files);
  // On base+new the files may not load at all: the ids the head+new run found in them, when it is done, are the ones to speak of.
  const cases = [...main.report.cases, ...green?.report?.cases ?? []];
  const ids = [...new Set(cases.filter((c) => c.file !== null && inFiles.has(c.file)).map((c) => c.id))].sort();
  if (ids.length === 0) return null;
  const tests = plan.policy.tests;
  const done: SuiteRun[] = [];
  for (let i = 1; i <= count && stopped() === null; i++) {
    const reportDir = join(plan.scratchDir, `report-${main.label.replace(/[^a-z]/g, "-")}-f${i}`);
    const listFile = join(reportDir, "select-files.txt");
    const selection = filesSelectionFor(tests, files, listFile, tree.treeDir, plan.profile.backend);
    if (selection === null) return null;
    const run = await runSuite(sandbox, {
      label: main.label, treeDir: tree.treeDir, readonly: tree.readonly, reportDir, setup: undefined, command: selection.command, env: selection.env,
      setupNetwork: tests.setup_network, timeout: tests.timeout, ...(deps === undefined ? {} : { deps }),
    }, () => writeFile(listFile, selectionList(files)));
    if (await filesUnproven(selection, files, listFile, run) !== null) return null;
    done.push({ ...run, selected: ids });
  }
  return { ids, runs: done };
}

/**
 * Runs `plan.repeats.count` repeats of what each tree still has to repeat (early repeats count);
 * one worker per tree. Returns every repeat of each side, early ones first.
 */
export async function runRepeats(sandbox: Sandbox, plan: MeasurePlan, runs: Partial<Record<RunName, SuiteRun>>, deps?: PreparedDependencies, early: RepeatsDone = {}): Promise<Partial<Record<RunName, SuiteRun[]>>> {
  const repeats = plan.repeats;
  const out: Partial<Record<RunName, SuiteRun[]>> = {};
  if (repeats === undefined || repeats.count < 1) return out;
  for (const [name, made] of Object.entries(early) as [RunName, { runs: SuiteRun[] }][]) out[name] = [...made.runs];
  const todo = [...repeatIds(repeats.taskTargets, repeats.newFiles, runs)]
    .map(([name, ids]): [RunName, string[]] => [name, ids.filter((id) => !(early[name]?.ids.includes(id) ?? false))])
    .filter(([name, ids]) => ids.length > 0 && repeats.trees[name] !== undefined);
  const worker = async (): Promise<void> => {
    for (let job = todo.shift(); job !== undefined; job = todo.shift()) {
      const [name, ids] = job;
      // Repeats read from the cache ran on no tree of this judgment: this tree has had no setup or build yet.
      const touched = early[name] !== undefined && early[name].cached !== true;
      const made = await repeatOn(sandbox, plan, name, repeats.trees[name]!, ids, "r", deps, touched);
      out[name] = [...out[name] ?? [], ...made];
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.parallel, todo.length)) }, worker));
  return out;
}

/**
 * One more run of the base's test files whose ids the head lacks exactly while it has ids of the
 * same normalised form (./tests/made-ids.ts): where the same tree now names them otherwise, the run
 * made them up (the clock, an address, a seed), and tests.regression matches them by that form. Only
 * those files run where the runner can select files; otherwise the whole suite. Null when no id needs
 * it or there is no base tree to run on (the claim then compares ids exactly, and says why).
 */
export async function runBaseAgain(sandbox: Sandbox, plan: MeasurePlan, runs: Partial<Record<RunName, SuiteRun>>, deps: PreparedDependencies | undefined, early: RepeatsDone = {}): Promise<SuiteRun | null> {
  const files = filesToRunAgain(runs.base?.report, runs.head?.report);
  const tree = plan.repeats?.trees.base;
  if (files.length === 0 || tree === undefined) return null;
  const tests = plan.policy.tests;
  const reportDir = join(plan.scratchDir, "report-base-again");
  const listFile = join(reportDir, "select-files.txt");
  const setupDone = early.base !== undefined && early.base.cached !== true;
  const spec = {
    label: "base" as const, treeDir: tree.treeDir, readonly: tree.readonly, reportDir, setupNetwork: tests.setup_network, timeout: tests.timeout,
    setup: deps === undefined && tree.setupFirst && !setupDone ? tests.setup : undefined, ...(deps === undefined ? {} : { deps }),
  };
  const selection = filesSelectionFor(tests, files, listFile, tree.treeDir, plan.profile.backend);
  if (selection !== null) {
    const run = await runSuite(sandbox, { ...spec, command: selection.command, env: selection.env }, () => writeFile(listFile, selectionList(files)));
    if (await filesUnproven(selection, files, listFile, run) === null) return { ...run, selectedFiles: [...files] };
  }
  // The whole suite: setup was done by the selected run when there was one, else it is still owed.
  return runSuite(sandbox, { ...spec, reportDir: `${reportDir}-whole`, ...(selection === null ? {} : { setup: undefined }), command: tests.command ?? "false" });
}

/** `count` repeats of `ids`, one after another on one tree. */
async function repeatOn(
  sandbox: Sandbox, plan: MeasurePlan, name: RunName, tree: RepeatTree, ids: readonly string[], tag: string, deps: PreparedDependencies | undefined, setupDone = false,
  stopped: () => string | null = () => null,
): Promise<SuiteRun[]> {
  const done: SuiteRun[] = [];
  // An early repeat runs beside the main runs: it stops as soon as one of them decided the verdict.
  for (let i = 1; i <= (plan.repeats?.count ?? 0) && stopped() === null; i++) {
    // A tree no main run used (the cached base's, the head's copy) never had its setup: the first
    // repeat runs it, unless the once-only setup (deps) serves every run anyway.
    // A tree a main run used, or that an earlier repeat ran on, holds the build already (Maven then skips its own).
    const built = !tree.setupFirst || setupDone || i > 1;
    done.push(await selectedRun(sandbox, plan, name, tree, ids, `${tag}${i}`, deps === undefined && tree.setupFirst && !setupDone && i === 1, deps, built));
  }
  return done;
}

/**
 * Why selecting failed once in this measuring process (per plan): later repeats run the whole suite
 * at once rather than try a selection that cannot take effect and then run the suite anyway.
 */
const selectionLost = new WeakMap<MeasurePlan, string>();

async function selectedRun(
  sandbox: Sandbox, plan: MeasurePlan, name: RunName, tree: { treeDir: string; readonly: string[] }, ids: readonly string[], tag: string, withSetup: boolean,
  deps: PreparedDependencies | undefined, built = false,
): Promise<SuiteRun> {
  const tests = plan.policy.tests;
  const reportDir = join(plan.scratchDir, `report-${name.replace(/[^a-z]/g, "-")}-${tag}`);
  const listFile = join(reportDir, "select.txt");
  const lost = selectionLost.get(plan);
  const selection = ids.length > 0 && lost === undefined ? selectionFor(tests, ids, listFile, plan.profile.backend, { treeDir: tree.treeDir, built }) : null;
  const spec = {
    label: name, treeDir: tree.treeDir, readonly: tree.readonly, setupNetwork: tests.setup_network, timeout: tests.timeout,
    ...(deps === undefined ? {} : { deps }),
  };
  const whole = (dir: string, setup: boolean): Promise<SuiteRun> =>
    runSuite(sandbox, { ...spec, reportDir: dir, setup: setup ? tests.setup : undefined, command: tests.command ?? "false" });
  if (selection === null) {
    const run = await whole(reportDir, withSetup);
    // The whole suite ran in place of a selection that could not take effect: say so beside its outcomes.
    return lost === undefined ? run : { ...run, selected: [...ids], selectionLost: lost };
  }
  const run = await runSuite(sandbox, { ...spec, reportDir, setup: withSetup ? tests.setup : undefined, command: selection.command, env: selection.env },
    () => writeFile(listFile, selectionList(ids)));
  const why = await selectionUnproven(selection, ids, listFile, run);
  if (why === null) return { ...run, selected: [...ids] };
  // Never an outcome: the tree's setup is done, so the whole suite runs on it now, and the rest of
  // this judgment's repeats go straight to the whole suite.
  selectionLost.set(plan, why);
  return { ...await whole(`${reportDir}-whole`, false), selected: [...ids], selectionLost: why };
}
