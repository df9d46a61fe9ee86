// tests.stable: a flaky green is not green. Each target ran `repeat` times on each side; every run
// must agree with the others. A target that passes once in three on the head is not a fixed test,
// and one that fails only sometimes on the base was never a reliable red.
import type { Detail, Evidence } from "../../kernel/types.js";
import type { SuiteRun, Target } from "../report-types.js";
import { isGreen, listed, resultWord, runProblem } from "./run-facts.js";

const CLAIM = "tests.stable";

/** The runs that show one target: its repeats on the base side and on the head side. */
export interface TargetRuns {
  base: readonly SuiteRun[];
  head: readonly SuiteRun[];
}

/** Whether `run` speaks of `id`: a run of the whole suite does, a selected run only of its selection. */
export function runsId(run: SuiteRun, id: string): boolean {
  return run.selected === undefined || run.selected.includes(id);
}

/**
 * One word per run that was asked to run `id`: the case's result, `absent`, or why the run says
 * nothing. A repeat of other selected tests is not a run of this one and gives no word.
 */
export function outcomesOf(id: string, runs: readonly SuiteRun[]): string[] {
  return runs.filter((run) => runsId(run, id)).map((run) => {
    if (run.report === null) return runProblem(run) === null ? "no report" : "run failed";
    const found = run.report.cases.filter((c) => c.id === id);
    if (found.length === 0) return run.report.loadErrors.length > 0 ? "not loaded" : "absent";
    // Same-named copies are one outcome only when they agree; otherwise the run shows them all.
    return [...new Set(found.map(resultWord))].sort().join("+");
  });
}

export function varies(outcomes: readonly string[]): boolean {
  return new Set(outcomes).size > 1;
}

/**
 * A test that passed on base and not on head, repeated on both sides (src/measure/repeats.ts), with
 * one word per run, the main run first.
 */
export interface SuspectOutcomes { id: string; base: string[]; head: string[] }

/**
 * The regression suspects that passed in every run of the base and changed their outcome between
 * runs of the head: flaky on the head, whether the machine's load or the change made them so (found
 * on pillarjs/path-to-regexp: a ReDoS checker with a time budget answers by the machine's load).
 * The same head may pass them on the next judgment, so no regression is shown; nor a stable pass.
 */
export function headFlakySuspects(base: readonly SuiteRun[], head: readonly SuiteRun[], targets: readonly Target[]): SuspectOutcomes[] {
  const [baseMain, headMain] = [base[0]?.report, head[0]?.report];
  if (baseMain == null || headMain == null || head.length < 2) return [];
  // Targets are judged as targets; a name several tests share is compared as counts (./outcomes.ts).
  const skip = new Set([...targets.map((t) => t.id), ...baseMain.duplicates, ...headMain.duplicates]);
  const onHead = new Map(headMain.cases.map((c) => [c.id, c]));
  const found: SuspectOutcomes[] = [];
  for (const before of baseMain.cases) {
    const after = onHead.get(before.id);
    if (skip.has(before.id) || !isGreen(before) || after === undefined || isGreen(after)) continue;
    const outcomes = { id: before.id, base: outcomesOf(before.id, base), head: outcomesOf(before.id, head) };
    if (!varies(outcomes.base) && varies(outcomes.head)) found.push(outcomes);
  }
  return found;
}

export function stableClaim(subject: string, targets: readonly Target[], runsOf: (target: Target) => TargetRuns, repeat: number, suspects: readonly SuspectOutcomes[] = []): Evidence {
  const meta = { repeat, targets: targets.map((t) => t.id) };
  if (targets.length === 0 && suspects.length === 0) {
    return { claim: CLAIM, subject, outcome: "absent", reason: "no target tests to repeat", details: [], meta };
  }
  const details: Detail[] = [];
  const flaky: string[] = [];
  const lost = new Set<string>();
  for (const target of targets) {
    const runs = runsOf(target);
    // Repeats only (they carry their ids): a main run's lost file selection is said on the run itself.
    for (const run of [...runs.base, ...runs.head]) if (run.selectionLost !== undefined && run.selected !== undefined) lost.add(run.selectionLost);
    const base = outcomesOf(target.id, runs.base);
    const head = outcomesOf(target.id, runs.head);
    const unstable = varies(base) || varies(head);
    if (unstable) flaky.push(target.id);
    details.push({
      kind: unstable ? "flaky" : "stable",
      message: `${target.id}: base ${base.join(", ")}; head ${head.join(", ")}`,
    });
  }
  for (const suspect of suspects) {
    details.push({ kind: "flaky", message: `${suspect.id}: base ${suspect.base.join(", ")}; head ${suspect.head.join(", ")} (passed on base, not a target)` });
  }
  // Said once, after the targets: the outcomes above are the whole suite's, never a lost selection's.
  for (const why of [...lost].sort()) details.push({ kind: "selection-lost", message: `repeats ran the whole suite: the selection did not take effect (${why})` });
  const reasons = [
    ...flaky.length > 0 ? [`target tests changed their outcome between ${repeat} repeats: ${listed(flaky)}`] : [],
    ...suspects.length > 0 ? [`tests that passed in every run of the base changed their outcome between runs of the head: ${listed(suspects.map((s) => s.id))} (flaky on head, from the machine's load or from this change: judge again, or make them stable)`] : [],
  ];
  if (reasons.length > 0) return { claim: CLAIM, subject, outcome: "fail", details, meta, reason: reasons.join("; ") };
  return { claim: CLAIM, subject, outcome: "pass", details, meta, reason: `every target gave the same outcome in ${repeat} repeats on base and head` };
}

/**
 * Tests whose outcome differs between repeats of the same tree: flaky there, so a change of theirs
 * between base and head is not the PR's doing (tests.regression lists them instead of blaming it).
 */
export function flakyIds(runs: readonly SuiteRun[]): string[] {
  if (runs.length < 2) return [];
  const ids = new Set(runs.flatMap((run) => run.report?.cases.map((c) => c.id).filter((id) => runsId(run, id)) ?? []));
  return [...ids].filter((id) => varies(outcomesOf(id, runs))).sort();
}
