// diff.needed: every changed hunk of non-test code must be needed by some test. A hunk whose mutant
// (the measured tree with that hunk put back as it was) leaves every watched test's outcome as it
// was is code no test constrains: a backdoor beside the fix, or a special case for the test's inputs.
import type { Detail, Evidence } from "../../kernel/types.js";
import type { SuiteRun, TestReport } from "../report-types.js";
import { listed, resultWord } from "../tests/run-facts.js";
import { hunkLabel, type Hunk } from "./hunks.js";

const CLAIM = "diff.needed";

export type MutantStatus = "killed" | "survived" | "not-checked";

export interface MutantResult {
  hunk: Hunk;
  status: MutantStatus;
  /** The tests whose outcome the mutant changed (killed), or why it was not checked. */
  killedBy: string[];
  why?: string;
}

/**
 * Which watched tests changed their outcome on the mutant, compared with the reference run of the
 * same tree without the mutation. A mutant run that broke the suite (no report, a crash, a file that
 * no longer loads) is killed by the run itself: the code was needed for the tests to run at all.
 */
export function killers(reference: TestReport, mutant: SuiteRun, watched: ReadonlySet<string>): string[] {
  if (mutant.command?.timedOut === true) return ["(the test run timed out)"];
  if (mutant.report === null) return [`(the test run: ${mutant.reportError ?? "no report"})`];
  const after = new Map<string, string[]>();
  for (const c of mutant.report.cases) after.set(c.id, [...(after.get(c.id) ?? []), resultWord(c)]);
  const before = new Map<string, string[]>();
  for (const c of reference.cases) before.set(c.id, [...(before.get(c.id) ?? []), resultWord(c)]);
  const changed: string[] = [];
  for (const id of [...watched].sort()) {
    const was = (before.get(id) ?? []).sort().join("+");
    const now = (after.get(id) ?? []).sort().join("+");
    if (was !== now) changed.push(id);
  }
  const newLoadErrors = mutant.report.loadErrors.filter((f) => !reference.loadErrors.includes(f));
  return [...changed, ...newLoadErrors.map((f) => `(${f} failed to load)`)];
}

export function mutantResult(hunk: Hunk, reference: TestReport, mutant: SuiteRun, watched: ReadonlySet<string>): MutantResult {
  const by = killers(reference, mutant, watched);
  return { hunk, status: by.length > 0 ? "killed" : "survived", killedBy: by };
}

export function neededClaim(subject: string, results: readonly MutantResult[]): Evidence {
  const survived = results.filter((r) => r.status === "survived");
  const unchecked = results.filter((r) => r.status === "not-checked");
  const details: Detail[] = results.map((r) => ({
    kind: r.status === "killed" ? "needed" : r.status === "survived" ? "unneeded" : "not-checked",
    path: r.hunk.path,
    line: r.hunk.whole === null ? r.hunk.newStart : undefined,
    message: r.status === "killed"
      ? `${hunkLabel(r.hunk)}: needed by ${listed(r.killedBy, 3)}`
      : r.status === "survived"
        ? `${hunkLabel(r.hunk)}: no test changes its outcome without this change`
        : `${hunkLabel(r.hunk)}: not checked (${r.why ?? "unknown"})`,
  }));
  const meta = { hunks: results.length, killed: results.length - survived.length - unchecked.length, survived: survived.length, unchecked: unchecked.length };
  if (results.length === 0) {
    return { claim: CLAIM, subject, outcome: "pass", reason: "the change has no hunks of non-test code", details, meta };
  }
  const problems: string[] = [];
  if (survived.length > 0) problems.push(`hunks no test needs: ${listed(survived.map((r) => hunkLabel(r.hunk)))}`);
  // A hunk that was not checked is never passed silently: the claim cannot hold for it.
  if (unchecked.length > 0) problems.push(`hunks not checked: ${listed(unchecked.map((r) => `${hunkLabel(r.hunk)} (${r.why ?? "unknown"})`))}`);
  if (problems.length > 0) return { claim: CLAIM, subject, outcome: "fail", reason: problems.join("; "), details, meta };
  return { claim: CLAIM, subject, outcome: "pass", reason: `each of the ${results.length} changed hunks is needed by a test`, details, meta };
}
