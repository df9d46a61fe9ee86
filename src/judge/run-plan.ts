import { lstat, readFile, realpath, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { RunSpec } from "../measure/plan.js";
import type { SuiteRun } from "../measure/report-types.js";
import type { Repository } from "../workspace/index.js";
import { writeInside } from "../workspace/write-inside.js";

export interface RunPlanInput {
  repo: Repository;
  base: string;
  head: string;
  scratch: string;
  runTests: boolean;
  newFiles: readonly string[];
  /**
   * Every path the pull request changed or added, as the judgment's diff has it (renames' new paths):
   * the runs of the head's trees hold these to be the PR's code, base+new its new test files, the base none.
   */
  changed: readonly string[];
  frozenPaths: readonly string[];
  cachedBase: SuiteRun | null;
  /** Lay out the base tree even when the base cache answers its run (tests.stable repeats it). */
  baseTreeForRepeats?: boolean;
  /** Lay out a second, pristine head (without the new test files) for repeats beside the head run. */
  headCopyForRepeats?: boolean;
  /**
   * Lay out the whole head once more for the policy's checks. Checks always run on a tree of their
   * own, never in a tree whose tests are measured: what a check writes (generated files, a build)
   * must not decide what the tests see, or a verdict would depend on whether the base was cached.
   */
  checks?: boolean;
  /**
   * Which of the PR's own runs may run only its new test files (when the runner can select them and
   * proves it did; else the whole suite). `head+new` stays whole when diff.needed's mutants use it as
   * their reference, which must be the full suite.
   */
  selectNew?: { headNew: boolean; baseNew: boolean };
  /** Lay out a base and a head (without the PR's new test files) for the sealed tests' runs of their own. */
  sealedTrees?: boolean;
}

export interface RunPlan {
  runs: RunSpec[];
  /** The tree of every run, cached base included when asked for: repeats and mutants use them. */
  trees: Partial<Record<RunSpec["name"], { treeDir: string; readonly: string[] }>>;
  checksTree: { treeDir: string; readonly: string[] } | null;
  /** The head's copy for early repeats, when asked for. */
  headCopy?: { treeDir: string; readonly: string[] };
  /** The trees the measuring process lays the sealed files over, when asked for (issue 20). */
  sealed?: { base: { treeDir: string; readonly: string[]; changed: string[] }; head: { treeDir: string; readonly: string[]; changed: string[] } };
}

/**
 * Lays out one private tree per run and says what each run is for (docs/measurement.md). For a PR
 * that adds test files, four runs; otherwise two:
 *   base      the base tree exactly: the regression baseline and the red side of task targets;
 *             cached and shared by every PR on that base.
 *   base+new  the base with the PR's new test files: only the red side of those tests.
 *   head      the head without the PR's new test files: regression, task targets and edges are
 *             judged here and only here, so nothing the PR's tests do can reach them. The canary
 *             runs here.
 *   head+new  the head whole: only the green side of the PR's own tests.
 * The PR's own runs (`head+new`, `base+new`) run only its new test files where the runner can select
 * them (`selectNew`); the tree is whole either way.
 * Git work stays in this (trusted) process; the trees are written before the measurer gets them.
 */
export async function planRuns(input: RunPlanInput): Promise<RunPlan> {
  const { repo, scratch } = input;
  const tree = (name: string) => join(scratch, `tree-${name}`);
  if (!input.runTests) {
    await repo.materialise(input.head, tree("head"));
    return { runs: [], trees: {}, checksTree: { treeDir: tree("head"), readonly: await presentFrozen(tree("head"), input.frozenPaths) } };
  }
  const withNew = input.newFiles.length > 0;
  const work: Promise<void>[] = [];
  const headWithoutNew = (dir: string) => repo.materialise(input.head, dir).then(async () => {
    for (const path of input.newFiles) await unlink(join(dir, path)).catch(() => undefined);
  });
  work.push(headWithoutNew(tree("head")));
  if (input.headCopyForRepeats === true) work.push(headWithoutNew(tree("head-repeat")));
  if (input.checks === true) work.push(repo.materialise(input.head, tree("checks")));
  if (input.sealedTrees === true) work.push(headWithoutNew(tree("sealed-head")), repo.materialise(input.base, tree("sealed-base")));
  if (input.cachedBase === null || input.baseTreeForRepeats === true) work.push(repo.materialise(input.base, tree("base")));
  if (withNew) {
    const laidOut = repo.materialise(input.head, tree("head+new"));
    work.push(laidOut);
    work.push(Promise.all([laidOut, repo.materialise(input.base, tree("base+new"))]).then(async () => {
      // The new test files as the head has them; a link among them is not copied (its target could
      // be anything), so it is simply absent on the base.
      for (const path of input.newFiles) {
        const source = join(tree("head+new"), path);
        const info = await lstat(source).catch(() => null);
        if (info?.isFile() === true) await writeInside(tree("base+new"), path, await readFile(source));
      }
    }));
  }
  await Promise.all(work);

  // What of each tree is the PR's: the head's trees hold its whole change, base+new only its new test
  // files, the base nothing (an unchanged helper that registers frozen tests is the owner's there too).
  const changedIn = (name: RunSpec["name"]): string[] => name === "base" ? [] : name === "base+new" ? [...input.newFiles] : [...input.changed];
  const spec = async (name: RunSpec["name"], purpose: string, extra: Partial<RunSpec>): Promise<RunSpec> => ({
    name, purpose, treeDir: tree(name), readonly: await presentFrozen(tree(name), input.frozenPaths),
    changed: changedIn(name), canary: false, priority: 0, cached: null, ...extra,
  });
  const runs: RunSpec[] = [];
  runs.push(await spec("head", "regression, task targets and edges, without the PR's new test files", { canary: true, priority: 0 }));
  if (input.cachedBase !== null) {
    runs.push({ name: "base", purpose: "regression baseline and red side of task targets (cached)", treeDir: "", readonly: [], canary: false, priority: 1, cached: input.cachedBase });
  } else {
    runs.push(await spec("base", "regression baseline and red side of task targets", { priority: 1 }));
  }
  if (withNew) {
    const only = (on: boolean | undefined): Partial<RunSpec> => on === true ? { files: [...input.newFiles] } : {};
    runs.push(await spec("head+new", "green side of the PR's own tests", { priority: 2, ...only(input.selectNew?.headNew) }));
    runs.push(await spec("base+new", "red side of the PR's own tests", { priority: 3, ...only(input.selectNew?.baseNew) }));
  }
  const trees: RunPlan["trees"] = {};
  for (const run of runs) if (run.cached === null) trees[run.name] = { treeDir: run.treeDir, readonly: run.readonly };
  if (input.cachedBase !== null && input.baseTreeForRepeats === true) trees.base = { treeDir: tree("base"), readonly: await presentFrozen(tree("base"), input.frozenPaths) };
  const headCopy = input.headCopyForRepeats === true ? { treeDir: tree("head-repeat"), readonly: await presentFrozen(tree("head-repeat"), input.frozenPaths) } : undefined;
  const checksTree = input.checks === true ? { treeDir: tree("checks"), readonly: await presentFrozen(tree("checks"), input.frozenPaths) } : null;
  const sealed = input.sealedTrees === true ? {
    base: { treeDir: tree("sealed-base"), readonly: await presentFrozen(tree("sealed-base"), input.frozenPaths), changed: changedIn("base") },
    head: { treeDir: tree("sealed-head"), readonly: await presentFrozen(tree("sealed-head"), input.frozenPaths), changed: changedIn("head") },
  } : undefined;
  return { runs, trees, checksTree, ...(headCopy === undefined ? {} : { headCopy }), ...(sealed === undefined ? {} : { sealed }) };
}

/** The frozen paths that are regular files of this tree, reached without a link: bound read-only. */
export async function presentFrozen(root: string, frozenPaths: readonly string[]): Promise<string[]> {
  const realRoot = await realpath(root);
  const present: string[] = [];
  for (const path of frozenPaths) {
    const full = join(realRoot, path);
    const info = await lstat(full).catch(() => null);
    if (info === null || !info.isFile()) continue;
    if (await realpath(full).catch(() => null) !== full) continue;
    present.push(path);
  }
  return present;
}
