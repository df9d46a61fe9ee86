// tests.red_green: every target fails on base (so it measures the change) and passes on head.
// A target already green on base is no target at all; one still red on head is work not done.
import type { Detail, Evidence } from "../../kernel/types.js";
import type { SuiteRun, Target, TestReport } from "../report-types.js";
import {
  casesById, exitDisagreement, fileOfId, isGreen, isRed, listed, resultWord, runProblem, suiteMeta, violations,
} from "./run-facts.js";

const CLAIM = "tests.red_green";
export const NO_TARGETS_REASON = "no target tests: name the target tests in a task manifest, or add new tests";
export const SELF_AUTHORED_MESSAGE = "self-authored: a reviewer should read it";

export function redGreenClaim(subject: string, base: SuiteRun, head: SuiteRun, targets: readonly Target[]): Evidence {
  const meta = { base: suiteMeta(base), head: suiteMeta(head), targets: targets.map((t) => t.id) };
  const unsafe = violations(base, head);
  const extra = unsafe.length > 0 ? { unsafe: true } : {};
  if (targets.length === 0) {
    const loads = head.report?.loadErrors ?? [];
    const note = loads.length > 0 ? ` (test files that failed to load on head: ${listed(loads)})` : "";
    return { claim: CLAIM, subject, outcome: "absent", reason: NO_TARGETS_REASON + note, details: [], meta, ...extra };
  }
  const details: Detail[] = selfAuthored(targets, head);
  const runFailure = [
    ...unsafe.map((v) => `the sandbox reported a violation (${v})`),
    ...[head, base].map(runProblem).filter((p): p is string => p !== null),
    // A report that contradicts its own exit status may be forged: targets read from it prove nothing.
    ...[head, base].map((run) => run.command !== null && run.report !== null ? exitDisagreement(run.label, run.command, run.report) : null)
      .filter((p): p is string => p !== null),
  ];
  if (runFailure.length > 0 || head.report === null || base.report === null) {
    const reason = runFailure[0] ?? "a report is missing";
    return { claim: CLAIM, subject, outcome: "fail", reason: `cannot judge the targets: ${reason}`, details, meta, ...extra };
  }

  const notRed: string[] = [];
  const notGreen: string[] = [];
  const ambiguous: string[] = [];
  const onBase = casesById(base.report);
  const onHead = casesById(head.report);
  for (const target of targets) {
    if (isAmbiguous(target.id, base.report) || isAmbiguous(target.id, head.report)) {
      ambiguous.push(target.id);
      details.push({ kind: "ambiguous", message: `${target.id} occurs more than once in a report: its result cannot be told` });
      continue;
    }
    const before = onBase.get(target.id);
    const after = onHead.get(target.id);
    const file = before?.file ?? after?.file ?? fileOfId(target.id);
    // A file that cannot even load on base fails every test in it: that is red.
    const loadFailed = before === undefined && base.report.loadErrors.includes(file);
    const red = loadFailed || (before !== undefined && isRed(before));
    const green = after !== undefined && isGreen(after);
    const baseWord = loadFailed ? "its file failed to load" : resultWord(before);
    if (!red) notRed.push(target.id);
    if (!green) notGreen.push(target.id);
    details.push({
      kind: red && green ? "red-green" : "target",
      path: file,
      message: `${target.id}: ${baseWord} on base, ${resultWord(after)} on head${red ? "" : " (not red on base)"}${green ? "" : " (not green on head)"}`,
    });
  }

  const problems = [
    ...(ambiguous.length > 0 ? [`ambiguous target ids: ${listed(ambiguous)}`] : []),
    ...(notRed.length > 0 ? [`targets that do not fail on base: ${listed(notRed)}`] : []),
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

function isAmbiguous(id: string, report: TestReport): boolean {
  return report.duplicates.includes(id);
}

// One note per file the PR wrote tests in: the rule that the implementer never writes its own test
// can only be checked by a person.
function selfAuthored(targets: readonly Target[], head: SuiteRun): Detail[] {
  const fileOf = new Map((head.report?.cases ?? []).map((c) => [c.id, c.file]));
  const files = new Set(targets.filter((t) => t.origin === "new-file").map((t) => fileOf.get(t.id) ?? fileOfId(t.id)));
  return [...files].sort().map((path) => ({ kind: "self-authored", path, message: SELF_AUTHORED_MESSAGE }));
}
