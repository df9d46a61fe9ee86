// tests.red_green: every target fails on base (so it measures the change) and passes on head.
// A target already green on base is no target at all; one still red on head is work not done.
import type { Detail, Evidence } from "../../kernel/types.js";
import type { SuiteRun, Target } from "../report-types.js";
import { resolveCase } from "./outcomes.js";
import { suiteRunFact } from "../run-report.js";
import {
  casesById, exitDisagreement, fileOfId, isGreen, isRed, listed, resultWord, runProblem, suiteMeta, violations,
} from "./run-facts.js";

const CLAIM = "tests.red_green";
export const NO_TARGETS_REASON = "no target tests: name the target tests in a task manifest, or add new tests";
export const SELF_AUTHORED_MESSAGE = "self-authored: a reviewer should read it";

export function redGreenClaim(subject: string, base: SuiteRun, head: SuiteRun, targets: readonly Target[]): Evidence {
  const meta = { base: suiteMeta(base), head: suiteMeta(head), targets: targets.map((t) => t.id) };
  const unsafe = violations(base, head);
  const extra = { ...(unsafe.length > 0 ? { unsafe: true } : {}), runs: [suiteRunFact(base), suiteRunFact(head)] };
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
    // Every problem, the base run's as well as the head's: none may hide behind another.
    const reason = runFailure.length > 0 ? runFailure.join("; ") : "a report is missing";
    return { claim: CLAIM, subject, outcome: "fail", reason: `cannot judge the targets: ${reason}`, details, meta, ...extra };
  }

  const notRed: string[] = [];
  const notGreen: string[] = [];
  const ambiguous: string[] = [];
  const onBase = casesById(base.report);
  const onHead = casesById(head.report);
  for (const target of targets) {
    const before = resolveCase(onBase, target.id);
    const after = resolveCase(onHead, target.id);
    // The task names an id several tests share: which one it means cannot be told, so the task is
    // refused, with the ids that name each copy (issue 15).
    const shared = before.kind === "shared" ? before.ids : after.kind === "shared" ? after.ids : null;
    if (shared !== null) {
      ambiguous.push(target.id);
      details.push({ kind: "ambiguous", message: `${target.id} is shared by ${shared.length} tests: name one of them instead (${shared.join(", ")})` });
      continue;
    }
    const beforeCase = before.kind === "case" ? before.case : undefined;
    const afterCase = after.kind === "case" ? after.case : undefined;
    const file = beforeCase?.file ?? afterCase?.file ?? fileOfId(target.id);
    // A file that cannot even load on base fails every test in it: that is red.
    const loadFailed = beforeCase === undefined && base.report.loadErrors.includes(file);
    const red = loadFailed || (beforeCase !== undefined && isRed(beforeCase));
    const green = afterCase !== undefined && isGreen(afterCase);
    const baseWord = loadFailed ? "its file failed to load" : resultWord(beforeCase);
    if (!red) notRed.push(target.id);
    if (!green) notGreen.push(target.id);
    details.push({
      kind: red && green ? "red-green" : "target",
      path: file,
      message: `${target.id}: ${baseWord} on base, ${resultWord(afterCase)} on head${red ? "" : " (not red on base)"}${green ? "" : " (not green on head)"}`,
    });
  }

  const problems = [
    ...(ambiguous.length > 0 ? [`the task names targets that more than one test shares, so their results cannot be told apart: ${listed(ambiguous)} (the details name each copy's own id)`] : []),
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

// One note per file the PR wrote tests in: the rule that the implementer never writes its own test
// can only be checked by a person.
function selfAuthored(targets: readonly Target[], head: SuiteRun): Detail[] {
  const fileOf = new Map((head.report?.cases ?? []).map((c) => [c.id, c.file]));
  const files = new Set(targets.filter((t) => t.origin === "new-file").map((t) => fileOf.get(t.id) ?? fileOfId(t.id)));
  return [...files].sort().map((path) => ({ kind: "self-authored", path, message: SELF_AUTHORED_MESSAGE }));
}
