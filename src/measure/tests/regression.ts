// tests.regression: nothing that passed on base breaks on head, and the head run is trustworthy
// enough to say so (present, non-empty, unambiguous, its exit status agreeing with its report).
import type { Detail, Evidence } from "../../kernel/types.js";
import type { SuiteRun, Target, TestCaseResult, TestReport } from "../report-types.js";
import {
  casesById, disagreement, isGreen, isRed, listed, loadErrorReason, resultWord, runProblem, suiteMeta, violations, withLoadReason,
} from "./run-facts.js";
import { anyRed, copiesWord, countCopies, isShared, lostCopies } from "./outcomes.js";
import { suiteRunFact } from "../run-report.js";
import { provenanceFindings, type ProvenanceContext } from "../provenance/judge.js";
import { canaryFindings } from "./canary-findings.js";
import { rewrittenFindings } from "./rewritten.js";
import { varies } from "./stable.js";
import { asCopies, matchMadeIds, type MadeIdMatch } from "./made-ids.js";

export { FORGED_RESULTS } from "./canary-findings.js";

const CLAIM = "tests.regression";

/** The repeats of the tests that passed on base and not on head (src/measure/repeats.ts). */
export interface SuspectRepeats {
  /** One word per run of each side that ran the id, the main run first; null when it was not repeated. */
  outcomes: (id: string) => { base: string[]; head: string[] } | null;
  /**
   * tests.stable is required and measured: a suspect that passed in every run of the base and changed
   * its outcome between runs of the head is flaky there, and tests.stable fails it (./stable.ts,
   * headFlakySuspects) instead of this claim blaming the change. Otherwise this claim fails it, saying so.
   */
  stableJudges: boolean;
  /**
   * A second run of the base's files whose ids the head did not have exactly (src/measure/repeats.ts):
   * where it names a key's tests otherwise than the first base run, the run made those ids up, and
   * they are matched by their normalised form (./made-ids.ts). Absent: ids are compared exactly.
   */
  baseAgain?: SuiteRun | null;
}

const NO_REPEATS: SuspectRepeats = { outcomes: () => null, stableJudges: false };

export function regressionClaim(
  subject: string, base: SuiteRun, head: SuiteRun, targets: readonly Target[], frozenTestFiles: readonly string[],
  /** Tests whose outcome changed between repeats of the base (tests.stable): listed, not blamed. */
  flakyOnBase: ReadonlySet<string> = new Set(),
  /** What the change committed and what the owner froze: the head run's provenance is judged against it. */
  provenance: ProvenanceContext = { changed: new Set(), frozen: new Set(frozenTestFiles) },
  /** The suspects' repeats: their outcomes are shown, and one flaky on the head may be tests.stable's to fail. */
  repeats: SuspectRepeats = NO_REPEATS,
): Evidence {
  const problems: string[] = [];
  const details: Detail[] = [];
  const unsafe = violations(base, head);
  for (const violation of unsafe) {
    problems.push(`the sandbox reported a violation (${violation})`);
    details.push({ kind: "violation", message: violation });
  }

  const forged = canaryFindings(head, details, base) ?? rewrittenFindings(head, details);
  if (forged !== null) problems.unshift(forged);
  // What ran is not what was reviewed: the run is not believed (issue 19).
  const ran = provenanceFindings(head, provenance, base);
  details.push(...ran.details);
  problems.push(...ran.problems);
  const untrusted = forged !== null || ran.problems.length > 0;
  const headReport = usableReport(head, problems, details);
  // The base run only serves comparison; when it is unusable nothing can be compared.
  const baseReport = usableReport(base, problems, details, "cannot compare with base: ");
  const made = headReport !== null && baseReport !== null ? matchMadeIds(baseReport, headReport, repeats.baseAgain) : null;
  if (headReport !== null && baseReport !== null && made !== null) compare(baseReport, headReport, targets, frozenTestFiles, problems, details, flakyOnBase, repeats, made);

  const meta = { base: suiteMeta(base), head: suiteMeta(head) };
  const extra = { ...(unsafe.length > 0 || untrusted ? { unsafe: true } : {}), runs: [suiteRunFact(base), suiteRunFact(head)] };
  if (problems.length > 0) {
    // Every problem is named: the base run's own trouble must not hide behind the head's (issue 15).
    return { claim: CLAIM, subject, outcome: "fail", reason: problems.join("; "), details, meta, ...extra };
  }
  const stillPassing = baseReport?.cases.filter(isGreen).length ?? 0;
  // Said in the reason, not only the details: a person must see that some ids were not compared exactly.
  const matched = made === null || made.groups.length === 0 ? "" : `; ${madeWord(made)} matched by a normalised id (details)`;
  return {
    claim: CLAIM, subject, outcome: "pass",
    reason: `all ${stillPassing} tests that passed on base pass on head (${headReport?.cases.length ?? 0} tests ran on head)${matched}`,
    details, meta, ...extra,
  };
}

function usableReport(run: SuiteRun, problems: string[], details: Detail[], prefix = ""): TestReport | null {
  const problem = runProblem(run);
  if (problem !== null) {
    problems.push(prefix + problem);
    return null;
  }
  const report = run.report;
  if (report === null || run.command === null) return null;
  let usable = true;
  if (report.cases.length === 0) {
    // The head's load errors get a problem of their own below, with their reasons.
    const loads = report.loadErrors.length > 0 && run.label !== "head" ? `; files that failed to load: ${listed(report.loadErrors)}` : "";
    // A base without tests is a fine base, unless its tests were there and failed to load.
    if (run.label === "head" || report.loadErrors.length > 0) {
      problems.push(`${prefix}the ${run.label} report has no test cases${loads}`);
      usable = false;
    }
  }
  if (report.duplicates.length > 0) {
    // Not a problem by itself: the copies are compared as counts of outcomes (outcomes.ts).
    const count = report.duplicates.length;
    details.push({
      kind: "shared-name",
      message: `${run.label}: ${count === 1 ? "1 test id is" : `${count} test ids are`} shared by more than one test (${listed(report.duplicates)}); their copies are compared as counts of outcomes`,
    });
  }
  const contradiction = disagreement(run);
  if (contradiction !== null) {
    problems.push(prefix + contradiction);
    details.push({ kind: "disagreement", message: contradiction });
    usable = false;
  }
  if (run.label === "head") {
    for (const file of report.loadErrors) {
      const reason = loadErrorReason(report, file);
      details.push({ kind: "load-error", path: file, message: `${file} failed to load on head${reason === undefined ? "" : `: ${reason}`}` });
    }
    if (report.loadErrors.length > 0) {
      problems.push(`test files failed to load on head: ${listed(report.loadErrors.map((file) => withLoadReason(report, file)))}`);
    }
  }
  return usable ? report : null;
}

function compare(
  base: TestReport, head: TestReport, targets: readonly Target[], frozenTestFiles: readonly string[],
  problems: string[], details: Detail[], flakyOnBase: ReadonlySet<string>, repeats: SuspectRepeats, made: MadeIdMatch,
): void {
  const onHead = casesById(head);
  const targetIds = new Set(targets.map((t) => t.id));
  const frozen = new Set(frozenTestFiles);
  const broken: string[] = [];
  const vanished: string[] = [];
  for (const before of base.cases) {
    const after = onHead.get(before.id);
    // A made-up id is compared with its key's other tests, below.
    if (made.baseIds.has(before.id)) continue;
    if (isShared(before) || isShared(after)) {
      compareShared(before, after, targetIds, frozen, { broken, vanished, details });
      continue;
    }
    if (isGreen(before)) {
      if (after === undefined) {
        vanished.push(before.id);
        details.push({ kind: "vanished", message: `${before.id} passed on base and is absent on head`, ...pathOf(before.file) });
      } else if (!isGreen(after) && flakyOnBase.has(before.id)) {
        details.push({ kind: "flaky", message: `${before.id} passed on base, ${resultWord(after)} on head, but its outcome changes between repeats of the base: flaky there, not blamed on this change`, ...pathOf(before.file) });
      } else if (!isGreen(after)) {
        const seen = repeats.outcomes(before.id);
        const runs = seen === null ? "" : ` (runs: base ${seen.base.join(", ")}; head ${seen.head.join(", ")})`;
        const flakyOnHead = seen !== null && varies(seen.head) && !varies(seen.base);
        if (flakyOnHead && repeats.stableJudges) {
          details.push({ kind: "flaky", message: `${before.id} passed on base, ${resultWord(after)} on head${runs}: its outcome changes between runs of the head, so no regression is shown; tests.stable fails it as flaky`, ...pathOf(before.file) });
          continue;
        }
        broken.push(before.id);
        const why = after.message !== undefined ? `: ${after.message}` : "";
        const flaky = flakyOnHead ? "; its outcome changes between runs of the head: flaky there (the machine's load or this change)" : "";
        details.push({ kind: "regressed", message: `${before.id} passed on base, ${resultWord(after)} on head${runs}${why}${flaky}`, ...pathOf(before.file) });
      }
      continue;
    }
    if (after === undefined && before.file !== null && frozen.has(before.file)) {
      // A frozen file's test may not disappear, whatever its result: the agent cannot move the target.
      vanished.push(before.id);
      details.push({ kind: "frozen-missing", message: `${before.id} of the frozen file ${before.file} is absent on head`, path: before.file });
      continue;
    }
    if (isRed(before) && !targetIds.has(before.id) && (after === undefined || !isGreen(after))) {
      details.push({ kind: "already-red", message: `${before.id} already ${resultWord(before)} on base and is not a target: allowed to stay red`, ...pathOf(before.file) });
    }
  }
  // A frozen file cannot change, so a red result it gives on head that the base did not have comes
  // from what the change did to it: a hook that now throws (jest reports an `afterAll` failure as a
  // test of its own), a case generated from data the change altered. It is a regression as well.
  const onBase = casesById(base);
  for (const after of head.cases) {
    if (after.file === null || !frozen.has(after.file) || onBase.has(after.id) || made.headIds.has(after.id) || targetIds.has(after.id) || !isRed(after)) continue;
    broken.push(after.id);
    const why = after.message !== undefined ? `: ${after.message}` : "";
    details.push({ kind: "regressed", message: `${after.id} of the frozen file ${after.file} is ${resultWord(after)} on head and was not on base${why}`, path: after.file });
  }
  compareMade(made, frozen, { broken, vanished, details });
  if (broken.length > 0) problems.push(`tests that passed on base do not pass on head: ${listed(broken)}`);
  if (vanished.length > 0) problems.push(`tests vanished on head: ${listed(vanished)}`);
}

/** A test id more than one test shares, on base or on head: compared as counts of outcomes. */
function compareShared(
  before: TestCaseResult, after: TestCaseResult | undefined, targetIds: ReadonlySet<string>, frozen: ReadonlySet<string>,
  found: { broken: string[]; vanished: string[]; details: Detail[] },
): void {
  const lost = lostCopies(before, after);
  const counts = `base: ${copiesWord(before)}; head: ${copiesWord(after)}`;
  if (lost > 0 && after === undefined) {
    found.vanished.push(before.id);
    found.details.push({ kind: "vanished", message: `${before.id} (${counts}) is absent on head`, ...pathOf(before.file) });
  } else if (lost > 0) {
    found.broken.push(before.id);
    const copies = lost === 1 ? "a test" : `${lost} tests`;
    found.details.push({ kind: "regressed", message: `${before.id}: ${copies} of this shared name went from pass to not-pass (${counts})`, ...pathOf(before.file) });
  } else if (after === undefined && before.file !== null && frozen.has(before.file)) {
    found.vanished.push(before.id);
    found.details.push({ kind: "frozen-missing", message: `${before.id} of the frozen file ${before.file} is absent on head`, path: before.file });
  } else if (countCopies(before).passed === 0 && anyRed(before) && !targetIds.has(before.id)) {
    found.details.push({ kind: "already-red", message: `${before.id} already failing on base (${counts}) and is not a target: allowed to stay red`, ...pathOf(before.file) });
  }
}

/**
 * The tests whose ids the base's own second run named otherwise: per key, as counts of outcomes.
 * Fewer passing on head (a deleted case), or more failing, still fails; a frozen file's key may not
 * hold fewer tests on head.
 */
function compareMade(made: MadeIdMatch, frozen: ReadonlySet<string>, found: { broken: string[]; vanished: string[]; details: Detail[] }): void {
  for (const why of made.unproven) found.details.push({ kind: "made-id-unproven", message: why });
  for (const group of made.groups) {
    const before = asCopies(group, "base");
    const after = asCopies(group, "head");
    if (before === undefined) continue;
    const lost = lostCopies(before, after);
    const fewer = (after?.copies?.length ?? 0) < (before.copies?.length ?? 0);
    const counts = `base: ${copiesWord(before)}; head: ${copiesWord(after)}`;
    const ids = `base ${listed(group.base.map((c) => c.id), 3)}; head ${listed(group.head.map((c) => c.id), 3)}; the base's second run ${listed(group.again, 3)}`;
    if (lost > 0 && fewer) {
      // A case deleted among made-up ids: the key holds fewer tests on head.
      found.vanished.push(...group.base.map((c) => c.id));
      found.details.push({ kind: "vanished", path: group.file, message: `${group.normalised}: fewer tests of ids the run makes up on head (${counts}; ${ids})` });
    } else if (lost > 0) {
      found.broken.push(...group.base.map((c) => c.id));
      found.details.push({ kind: "regressed", path: group.file, message: `${group.normalised}: ${lost === 1 ? "a test" : `${lost} tests`} of ids the run makes up went from pass to not-pass (${counts}; ${ids})` });
    } else if (fewer && frozen.has(group.file)) {
      found.vanished.push(...group.base.map((c) => c.id));
      found.details.push({ kind: "frozen-missing", path: group.file, message: `${group.normalised}: the frozen file ${group.file} has fewer tests of ids the run makes up on head (${counts}; ${ids})` });
    } else {
      found.details.push({ kind: "made-id", path: group.file, message: `${group.normalised}: ids the run makes up (two runs of the base named them differently), matched by this normalised form and compared as counts (${counts}; ${ids})` });
    }
  }
}

function madeWord(made: MadeIdMatch): string {
  const count = made.groups.reduce((n, g) => n + g.base.length, 0);
  return count === 1 ? "1 test whose id the run makes up was" : `${count} tests whose ids the run makes up were`;
}

function pathOf(file: string | null): { path?: string } {
  return file === null ? {} : { path: file };
}
