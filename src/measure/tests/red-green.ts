// tests.red_green: every target fails on base (so it measures the change) and passes on head.
// A target already green on base is no target at all; one still red on head is work not done.
import type { Detail, Evidence } from "../../kernel/types.js";
import type { SuiteRun, Target, TestReport } from "../report-types.js";
import { resolveCase } from "./outcomes.js";
import { suiteRunFact } from "../run-report.js";
import { canaryFindings } from "./canary-findings.js";
import { rewrittenFindings } from "./rewritten.js";
import {
  casesById, disagreement, fileOfId, isGreen, isRed, listed, resultWord, runProblem, suiteMeta, violations,
} from "./run-facts.js";

const CLAIM = "tests.red_green";
export const NO_TARGETS_REASON = "no target tests: name the target tests in a task manifest, or add new tests";
export const SELF_AUTHORED_MESSAGE = "self-authored: a reviewer should read it";

/**
 * The runs targets are read from. A task's targets: red on `base` (the base exactly), green on `head`
 * (the head without the PR's new test files). The PR's own tests: red on `baseNew`, green on
 * `headNew`; without those runs (a PR that adds no test files) they are read from base and head.
 */
export interface TargetRuns {
  base: SuiteRun;
  head: SuiteRun;
  baseNew: SuiteRun | null;
  headNew: SuiteRun | null;
}

export function redGreenClaim(
  subject: string, runs: TargetRuns, targets: readonly Target[],
  /** What the provenance record says against a run of the PR's own tests (a value that lies about itself). */
  ownRunProblems: (run: SuiteRun) => string[] = () => [],
  /** Task targets the base holds but the command never compiles (a cargo feature it leaves off), with why (issue 22). */
  hiddenOnBase: ReadonlyMap<string, string> = new Map(),
): Evidence {
  const { base, head } = runs;
  const redRun = (t: Target): SuiteRun => t.origin === "new-file" ? runs.baseNew ?? base : base;
  const greenRun = (t: Target): SuiteRun => t.origin === "new-file" ? runs.headNew ?? head : head;
  const used = [...new Set(targets.flatMap((t) => [greenRun(t), redRun(t)]))];
  const all = [base, head, runs.baseNew, runs.headNew].filter((r): r is SuiteRun => r !== null);
  const meta = {
    ...Object.fromEntries(all.map((r) => [r.label, suiteMeta(r)])), targets: targets.map((t) => t.id),
  };
  const unsafe = violations(...(targets.length === 0 ? all : used));
  // The PR's own runs green is read from (the head run's canaries are tests.regression's), when their canaries came back wrong (the PR's own test file, or what
  // it imports, neutering `expect` in head+new): what they report did not happen (issue 19).
  const canaryDetails: Detail[] = [];
  const forged = targets.length === 0 ? [] : [
    ...[...new Set(targets.map(greenRun))].filter((r) => r !== head).map((r) => canaryFindings(r, canaryDetails, base)),
    ...[...new Set(targets.map(greenRun))].filter((r) => r !== head).flatMap(ownRunProblems),
    // Green read from a rewritten report, or red from one (a new test made to look failing on base).
    ...used.map((r) => rewrittenFindings(r, canaryDetails)),
  ].filter((p): p is string => p !== null);
  const extra = { ...(unsafe.length > 0 || forged.length > 0 ? { unsafe: true } : {}), runs: all.map(suiteRunFact) };
  if (targets.length === 0) {
    const loads = [...new Set([...head.report?.loadErrors ?? [], ...runs.headNew?.report?.loadErrors ?? []])];
    const note = loads.length > 0 ? ` (test files that failed to load on head: ${listed(loads)})` : "";
    return { claim: CLAIM, subject, outcome: "absent", reason: NO_TARGETS_REASON + note, details: [], meta, ...extra };
  }
  const details: Detail[] = [...selfAuthored(targets, runs.headNew ?? head), ...(forged.length > 0 ? canaryDetails : [])];
  const runFailure = [
    ...forged,
    ...unsafe.map((v) => `the sandbox reported a violation (${v})`),
    ...used.map(runProblem).filter((p): p is string => p !== null),
    // A report that contradicts its own exit status may be forged: targets read from it prove nothing.
    ...used.map(disagreement).filter((p): p is string => p !== null),
    ...newLoadErrors(runs),
  ];
  if (runFailure.length > 0 || used.some((r) => r.report === null)) {
    // Every problem, the base run's as well as the head's: none may hide behind another.
    const reason = runFailure.length > 0 ? runFailure.join("; ") : "a report is missing";
    return { claim: CLAIM, subject, outcome: "fail", reason: `cannot judge the targets: ${reason}`, details, meta, ...extra };
  }

  const notRed: string[] = [];
  const hiddenNotRed: string[] = [];
  const notGreen: string[] = [];
  const ambiguous: string[] = [];
  for (const target of targets) {
    const beforeReport = redRun(target).report as TestReport;
    const afterReport = greenRun(target).report as TestReport;
    const beforeResolved = resolveCase(casesById(beforeReport), target.id);
    const afterResolved = resolveCase(casesById(afterReport), target.id);
    // The task names an id several tests share: which one it means cannot be told, so the task is
    // refused, with the ids that name each copy (issue 15).
    const shared = beforeResolved.kind === "shared" ? beforeResolved.ids : afterResolved.kind === "shared" ? afterResolved.ids : null;
    if (shared !== null) {
      ambiguous.push(target.id);
      details.push({ kind: "ambiguous", message: `${target.id} is shared by ${shared.length} tests: name one of them instead (${shared.join(", ")})` });
      continue;
    }
    const before = beforeResolved.kind === "case" ? beforeResolved.case : undefined;
    const after = afterResolved.kind === "case" ? afterResolved.case : undefined;
    const file = before?.file ?? after?.file ?? fileOfId(target.id);
    // A file that cannot even load on base fails every test in it: that is red. A runner that names
    // no file (Node 20's junit) still names the file that failed: a new test file among the base
    // run's new load errors is the one.
    const loadFailed = before === undefined && (beforeReport.loadErrors.includes(file)
      || (target.origin === "new-file" && (before ?? after)?.file == null && newFileFailedOnBase(runs)));
    const red = loadFailed || (before !== undefined && isRed(before));
    const green = after !== undefined && isGreen(after);
    const baseWord = loadFailed ? "its file failed to load" : resultWord(before);
    if (!red) notRed.push(target.id);
    if (!green) notGreen.push(target.id);
    const hidden = before === undefined && !red ? hiddenOnBase.get(target.id) : undefined;
    if (hidden !== undefined) hiddenNotRed.push(`${target.id} is ${hidden}`);
    details.push({
      kind: red && green ? "red-green" : "target",
      path: file,
      message: `${target.id}: ${baseWord} on base, ${resultWord(after)} on head${red ? "" : " (not red on base)"}${green ? "" : " (not green on head)"}${hidden === undefined ? "" : `: the base holds it ${hidden}`}`,
    });
  }

  const problems = [
    ...(ambiguous.length > 0 ? [`the task names targets that more than one test shares, so their results cannot be told apart: ${listed(ambiguous)} (the details name each copy's own id)`] : []),
    ...(notRed.length > 0 ? [`targets that do not fail on base: ${listed(notRed)}${hiddenNotRed.length > 0 ? ` (${hiddenNotRed.join("; ")})` : ""}`] : []),
    ...(notGreen.length > 0 ? [`targets that do not pass on head: ${listed(notGreen)}`] : []),
  ];
  if (problems.length > 0) {
    return { claim: CLAIM, subject, outcome: "fail", reason: problems.join("; "), details, meta, ...extra };
  }
  return {
    claim: CLAIM, subject, outcome: "pass",
    reason: `all ${targets.length} target tests fail on base and pass on head`, details, meta, ...extra,
  };
}

/** Test files that fail to load on the head with the PR's new tests and not without: the new ones. */
function newLoadErrors(runs: TargetRuns): string[] {
  const before = new Set(runs.head.report?.loadErrors ?? []);
  const failed = (runs.headNew?.report?.loadErrors ?? []).filter((f) => !before.has(f));
  return failed.length > 0 ? [`the PR's new test files failed to load on head: ${listed(failed)}`] : [];
}

function newFileFailedOnBase(runs: TargetRuns): boolean {
  if (runs.baseNew?.report == null) return false;
  const before = new Set(runs.base.report?.loadErrors ?? []);
  return runs.baseNew.report.loadErrors.some((f) => !before.has(f));
}

// One note per file the PR wrote tests in: the rule that the implementer never writes its own test
// can only be checked by a person.
function selfAuthored(targets: readonly Target[], head: SuiteRun): Detail[] {
  const fileOf = new Map((head.report?.cases ?? []).map((c) => [c.id, c.file]));
  const files = new Set(targets.filter((t) => t.origin === "new-file").map((t) => fileOf.get(t.id) ?? fileOfId(t.id)));
  return [...files].sort().map((path) => ({ kind: "self-authored", path, message: SELF_AUTHORED_MESSAGE }));
}
