// diff.needed's mutants, in the measuring process (which alone knows the main runs' results): as
// many at once as the judgment's cores allow, all within the policy's `needed.timeout`.
//
// When the runner can select tests, each mutant first runs only the test files that hold a watched
// test (src/measure/needed/selection.ts), on a copy of its tree, and those same tests run once on an
// unmutated copy to compare with. A mutant they kill is done; one they do not kill runs the full
// suite on its own untouched tree, as every mutant does when the runner cannot select.
import { cp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Sandbox } from "../sandbox/index.js";
import type { MeasurePlan, MutantRun, MutantSelection, MutantSpec } from "./plan.js";
import type { RunName, SuiteRun, TestReport } from "./report-types.js";
import type { PreparedDependencies } from "./deps/prepare.js";
import { runSuite } from "./run-suite.js";
import { selectionFor, selectionList, selectionUnproven } from "./select.js";
import { collectTargets } from "./tests/targets.js";
import { killers } from "./needed/claim.js";
import pLimit from "p-limit";
import { chooseMutantTests, selectionProblem, watchedIds, type MutantTests } from "./needed/selection.js";
import { releaseTree } from "../sandbox/tree-limit.js";

export interface MutantsOutcome {
  mutants: MutantRun[];
  selection: MutantSelection;
  /** Milliseconds the runs of each kind took, added up (they overlap in time). */
  selectedMs: number;
  fullMs: number;
}

interface Chosen extends MutantTests {
  reference: TestReport;
  watched: Set<string>;
}

/** `unproven`: why a run of selected tests cannot be read as their outcomes (the selection did not take effect). */
type Timed = { run: SuiteRun; cut: false; unproven: string | null } | { run: SuiteRun | null; cut: true; unproven: string | null };

/** The tests to select for the mutants, or why every mutant runs the full suite. */
function choose(plan: MeasurePlan, runs: Partial<Record<RunName, SuiteRun>>): Chosen | { why: string } {
  const needed = plan.needed!;
  const of = needed.mutants[0]?.of;
  if (needed.selectionTree === null) return { why: "the runner cannot select tests with this command, and the policy has no tests.select" };
  const reference = of === undefined ? undefined : runs[of];
  if (reference?.report == null || runs.head === undefined || runs.base === undefined) return { why: "the reference run has no report" };
  const targets = collectTargets(needed.taskTargets, needed.newFiles, runs.head, runs["head+new"] ?? null);
  const watched = watchedIds(targets, runs.base);
  const chosen = chooseMutantTests(reference.report, watched, needed.mutants.length);
  return "why" in chosen ? chosen : { ...chosen, reference: reference.report, watched };
}

export async function runMutants(sandbox: Sandbox, plan: MeasurePlan, runs: Partial<Record<RunName, SuiteRun>>, deps?: PreparedDependencies): Promise<MutantsOutcome> {
  const needed = plan.needed!;
  const tests = plan.policy.tests;
  const budget = plan.policy.needed.timeout;
  const deadline = Date.now() + budget * 1000;
  const outOfTime = `needed.timeout of ${budget} s ran out`;
  const slot = pLimit(Math.max(1, plan.parallel));
  const spent = { selectedMs: 0, fullMs: 0 };

  /** One run of the suite, or of `ids`, on `tree`; `cut` when the overall budget, not the run, ended it. */
  const timedRun = async (tree: { treeDir: string; readonly: string[] }, label: RunName, reportName: string, ids: readonly string[] | null): Promise<Timed> => {
    const left = Math.floor((deadline - Date.now()) / 1000);
    if (left < 1) return { run: null, cut: true, unproven: null };
    const timeout = Math.min(tests.timeout, left);
    const reportDir = join(plan.scratchDir, reportName);
    const listFile = join(reportDir, "select.txt");
    const selection = ids === null ? null : selectionFor(tests, ids, listFile, plan.profile.backend, { treeDir: tree.treeDir });
    const t0 = Date.now();
    const run = await runSuite(sandbox, {
      label, treeDir: tree.treeDir, readonly: tree.readonly, reportDir,
      setup: tests.setup, command: selection?.command ?? tests.command ?? "false", setupNetwork: tests.setup_network, timeout,
      env: selection?.env, ...(deps === undefined ? {} : { deps }),
    }, selection === null || ids === null ? undefined : () => writeFile(listFile, selectionList(ids)));
    spent[ids === null ? "fullMs" : "selectedMs"] += Date.now() - t0;
    // Cut short by the overall budget rather than its own timeout: it says nothing either way.
    const cut = timeout < tests.timeout && (run.command?.timedOut === true || run.setup?.timedOut === true);
    const unproven = selection === null || ids === null ? null : await selectionUnproven(selection, ids, listFile, run);
    return cut ? { run, cut: true, unproven } : { run, cut: false, unproven };
  };

  const chosen = choose(plan, runs);
  const selected = "why" in chosen ? null : chosen;
  // The selected tests on the unmutated tree, started first; the mutants' selected runs go beside it.
  const reference = selected === null || needed.selectionTree === null ? null
    : slot(() => timedRun(needed.selectionTree!, needed.mutants[0]!.of, "report-mutant-reference-selected", selected.ids)).then((done) => ({
      run: done.run,
      problem: done.cut ? outOfTime : done.unproven ?? selectionProblem(selected.reference, done.run!, selected.ids, selected.watched),
    }));

  const one = async (m: MutantSpec): Promise<MutantRun> => {
    let first: SuiteRun | undefined;
    if (selected !== null && reference !== null) {
      // On a copy: the full suite, if it must run, starts from the mutant as written, not as these tests left it.
      const copy = { treeDir: `${m.treeDir}-selected`, readonly: m.readonly };
      const ran = await slot(async () => {
        await cp(m.treeDir, copy.treeDir, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
        try {
          return await timedRun(copy, m.of, `report-mutant-${m.id}-selected`, selected.ids);
        } finally {
          releaseTree(copy.treeDir);
          await rm(copy.treeDir, { recursive: true, force: true });
        }
      });
      const ref = await reference;
      if (ref.problem === null && ref.run !== null) {
        if (ran.cut) return { id: m.id, run: null, why: outOfTime };
        // A mutant's run whose selection did not take effect killed nothing: the full suite decides.
        if (ran.unproven === null) first = ran.run;
        if (first !== undefined && killers(ref.run.report!, first, selected.watched).length > 0) return { id: m.id, run: null, selected: first };
      }
    }
    const full = await slot(() => timedRun(m, m.of, `report-mutant-${m.id}`, null));
    const kept = first === undefined ? {} : { selected: first };
    if (full.cut) return { id: m.id, run: null, ...kept, why: first === undefined ? outOfTime : `the selected tests did not kill it, and the ${outOfTime} before the full suite could` };
    return { id: m.id, run: full.run, ...kept };
  };

  const mutants = await Promise.all(needed.mutants.map(one));
  const ref = await reference;
  const selection: MutantSelection = selected === null ? { why: (chosen as { why: string }).why, used: false }
    : ref === null || ref.problem !== null || ref.run === null ? { used: false, why: `every mutant ran the full suite: ${ref?.problem ?? "no run of the selected tests"}` }
      : { used: true, how: selectionFor(tests, selected.ids, "", plan.profile.backend)?.how ?? "unknown", files: selected.files, ids: selected.ids, suiteCases: selected.suiteCases, reference: ref.run };
  return { mutants, selection, ...spent };
}
