// Which tests a mutant of diff.needed runs. Pure: the measuring process uses it to choose and to
// decide whether a mutant needs the full suite, the parent to read the same runs into evidence.
//
// Soundness rests on two rules, not on the choice itself: a mutant the selected tests do not kill
// runs the full suite before it may be called unneeded, and a selected run is compared only with a
// run of the same selection on the unmutated tree, which must agree with the full run on every
// watched test it holds. So a selection can make a mutant cost more, never make a needed hunk look
// unneeded, nor an unneeded one look needed because of what the selection left out.
import type { SuiteRun, Target, TestReport } from "../report-types.js";
import { isGreen, listed, resultWord } from "../tests/run-facts.js";

/**
 * The tests whose outcome a mutant must change to be killed: every target, and every test green on
 * base. A target naming one copy of a shared id (`<id>#2`) watches the shared id: runs are compared
 * by id, every copy's outcome counted.
 */
export function watchedIds(targets: readonly Target[], base: SuiteRun): Set<string> {
  const ids = new Set(base.report?.cases.filter(isGreen).map((c) => c.id) ?? []);
  for (const { id } of targets) {
    ids.add(id);
    const ordinal = /^(.*)#\d+$/.exec(id);
    if (ordinal?.[1] !== undefined) ids.add(ordinal[1]);
  }
  return ids;
}

export interface MutantTests {
  /** Every test case of the reference run in a file that holds a watched test (and watched cases without a file). */
  ids: string[];
  files: string[];
  /** Test cases the reference run of the whole suite holds. */
  suiteCases: number;
}

/**
 * The tests each mutant runs first: all of every test file that holds a watched test (a whole file,
 * so tests that share a file's state run as they did), by id, since that is what a selection is
 * told. Null with the reason when the full suite is as cheap: counted in test cases, the selected
 * runs (one per mutant, one on the unmutated tree) must cost at most half of one full run per mutant;
 * the other half leaves room for a runner's start-up and for the mutants that run the suite after.
 */
export function chooseMutantTests(reference: TestReport, watched: ReadonlySet<string>, mutants: number): MutantTests | { why: string } {
  const suiteCases = reference.cases.length;
  const watchedCases = reference.cases.filter((c) => watched.has(c.id));
  if (watchedCases.length === 0) return { why: "the reference run holds no watched test" };
  const files = new Set(watchedCases.flatMap((c) => (c.file === null ? [] : [c.file])));
  const chosen = reference.cases.filter((c) => (c.file !== null ? files.has(c.file) : watched.has(c.id)));
  if (2 * (mutants + 1) * chosen.length > mutants * suiteCases) {
    return { why: `the files of the watched tests hold ${chosen.length} of the suite's ${suiteCases} test cases: selecting them would not be cheaper for ${mutants} ${mutants === 1 ? "mutant" : "mutants"}` };
  }
  return { ids: [...new Set(chosen.map((c) => c.id))].sort(), files: [...files].sort(), suiteCases };
}

function outcomes(report: TestReport): Map<string, string> {
  const words = new Map<string, string[]>();
  for (const c of report.cases) words.set(c.id, [...(words.get(c.id) ?? []), resultWord(c)]);
  return new Map([...words].map(([id, list]) => [id, list.sort().join("+")]));
}

/**
 * Why the run of the selected tests on the unmutated tree cannot stand in for the full suite, or null
 * when it can: it must have run, run only the selected tests, and give every watched one among them
 * the outcome the full run gave it. A test that depends on one left out would otherwise read as
 * killed by a mutant it never saw.
 */
export function selectionProblem(full: TestReport, selected: SuiteRun, ids: readonly string[], watched: ReadonlySet<string>): string | null {
  if (selected.command?.timedOut === true) return "the run of the selected tests timed out";
  if (selected.report === null) return `the run of the selected tests has no report (${selected.reportError ?? "unknown"})`;
  const chosen = new Set(ids);
  // A runner may report what it left out as skipped (node --test with a name pattern): not run, so not extra.
  const extra = selected.report.cases.filter((c) => !chosen.has(c.id) && c.result !== "skipped");
  if (extra.length > 0) return `the selection ran tests it was not given (${listed(extra.map((c) => c.id), 3)})`;
  const newLoadErrors = selected.report.loadErrors.filter((f) => !full.loadErrors.includes(f));
  if (newLoadErrors.length > 0) return `with the selection, ${listed(newLoadErrors, 3)} failed to load`;
  const before = outcomes(full);
  const after = outcomes(selected.report);
  const differ = ids.filter((id) => watched.has(id) && (before.get(id) ?? "") !== (after.get(id) ?? ""));
  if (differ.length > 0) return `the selected tests did not give the full run's outcomes (${listed(differ, 3)})`;
  return null;
}
