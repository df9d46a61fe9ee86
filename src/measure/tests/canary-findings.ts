// What the canaries of a run say about whether its report can be believed (src/measure/canary.ts):
// read by tests.regression on the head run, and by tests.red_green on the runs it reads green from.
import type { Detail } from "../../kernel/types.js";
import type { CanaryMemberOutcome, SuiteRun } from "../report-types.js";

export const FORGED_RESULTS = "the test run reported results that did not happen";

/**
 * The canary is a test that must fail. Reported passed, or skipped while other tests ran, the report
 * (or the runner) is not telling what happened: unsafe. Not collected at all is only a note: runners
 * and commands the gate cannot give it to still get judged. A canary that runs inside every test
 * file is judged in each file, and the reason names the files.
 */
export function canaryFindings(run: SuiteRun, details: Detail[], base: SuiteRun | null = null): string | null {
  const canary = run.canary;
  if (canary === undefined) return null;
  for (const note of canary.notes) details.push({ kind: "canary", message: `no canary: ${note}` });
  const members: CanaryMemberOutcome[] = (canary.members ?? [{ name: canary.name, via: "a plain raise", expect: "fail" as const, result: canary.result }])
    .map((m) => (m.againstBase === true && run !== base ? lessWhatBaseDid(m, base) : m));
  const present = members.filter((m) => m.result !== "absent");
  const wrong: string[] = [];
  for (const m of members) {
    if (m.inBinary !== undefined) {
      const why = binaryWise(m, m.inBinary);
      if (why !== null) wrong.push(why);
    } else if (m.inEachFile !== undefined) {
      if (m.inEachFile.wrongCount > 0) wrong.push(fileWise(m, m.inEachFile));
      else if (m.result === "absent" && present.length > 0) wrong.push(`${m.name} (through ${m.via}) was not reported while the other canaries were`);
    } else if (m.expect === "fail" && (m.result === "passed" || (m.result === "skipped" && canary.othersRan))) {
      wrong.push(`${m.name} (fails through ${m.via}) was reported ${m.result}`);
    } else if (m.expect === "pass" && (m.result === "failed" || m.result === "errored" || (m.result === "skipped" && canary.othersRan))) {
      wrong.push(`${m.name} (passes through ${m.via}) was reported ${m.result}${m.message !== undefined ? `: ${m.message}` : ""}`);
    } else if (m.result === "absent" && present.length > 0) {
      // The family is collected together: one missing while the others ran was taken out.
      wrong.push(`${m.name} (through ${m.via}) was not reported while the other canaries were`);
    }
  }
  if (wrong.length > 0) {
    const what = `${FORGED_RESULTS}: the gate's canaries came back wrong on ${run.label}: ${wrong.join("; ")}`;
    details.push({ kind: "canary", message: what });
    for (const m of members) for (const w of m.inEachFile?.wrong ?? []) details.push({ kind: "canary", path: w.file, message: `${w.file}: ${m.name} (${m.expect === "fail" ? "fails" : "passes"} through ${m.via}) was ${w.result === "absent" ? "not reported" : `reported ${w.result}`}${w.message !== undefined && m.expect === "pass" ? `: ${w.message}` : ""}` });
    return what;
  }
  if (present.length === 0 && canary.runners.length > 0 && run.report !== null) {
    details.push({ kind: "canary", message: `the canaries given to ${canary.runners.join(", ")} were not collected (a test selection or configuration can leave them out); their absence proves nothing either way` });
  }
  return null;
}

/**
 * A canary compiled into one test binary of several is judged with that binary's own tests: missing
 * while they were reported, the binary ended before it (an exit from code under test) or its output
 * was rewritten, unless the binary visibly died (issue 19). A must-pass one that failed where none of
 * the binary's own tests passed says nothing about forgery.
 */
function binaryWise(m: CanaryMemberOutcome, binary: NonNullable<CanaryMemberOutcome["inBinary"]>): string | null {
  const how = m.expect === "fail" ? "fails" : "passes";
  const inside = `in ${binary.label}'s test binary`;
  if (m.result === "absent" || m.result === "skipped") {
    if (!binary.othersRan || binary.died) return null;
    return `${m.name} (${how} through ${m.via}, ${inside}) was ${m.result === "absent" ? "not reported" : "reported skipped"} while that binary's own tests were: it ended before the canary ran, or its output was rewritten`;
  }
  if (m.expect === "fail") return m.result === "passed" ? `${m.name} (fails through ${m.via}, ${inside}) was reported passed` : null;
  return m.result !== "passed" && binary.otherPassed ? `${m.name} (passes through ${m.via}, ${inside}) was reported ${m.result}` : null;
}

/**
 * A member judged against the base (the intrinsics in each test file's context): a file wrong the same
 * way in the base's run (same file, outcome and message, by the member's `via`: names are drawn per
 * run) is not wrong here. Without a base run, or past the files the base's run named, nothing is taken off.
 */
function lessWhatBaseDid(m: CanaryMemberOutcome, base: SuiteRun | null): CanaryMemberOutcome {
  const each = m.inEachFile;
  const before = base?.canary?.members?.find((b) => b.via === m.via)?.inEachFile;
  if (each === undefined || before === undefined || each.wrong.length < each.wrongCount) return m;
  const same = new Set(before.wrong.map((w) => JSON.stringify([w.file, w.result, w.message ?? ""])));
  const wrong = each.wrong.filter((w) => !same.has(JSON.stringify([w.file, w.result, w.message ?? ""])));
  return { ...m, inEachFile: { ...each, wrong, wrongCount: wrong.length } };
}

function fileWise(m: CanaryMemberOutcome, each: NonNullable<CanaryMemberOutcome["inEachFile"]>): string {
  const how = m.expect === "fail" ? "fails" : "passes";
  const said = (w: (typeof each.wrong)[number]): string => (m.expect === "pass" && w.message !== undefined ? `: ${w.message}` : "");
  const files = each.wrong.map((w) => `${w.file} (${w.result === "absent" ? "not reported" : w.result}${said(w)})`).join(", ");
  const more = each.wrongCount > each.wrong.length ? ` and ${each.wrongCount - each.wrong.length} more files` : "";
  return `${m.name} (${how} through ${m.via}) came back wrong in ${files}${more}`;
}
