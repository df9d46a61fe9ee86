// diff.needed: every changed hunk of non-test code must be needed by some test. A hunk whose mutant
// (the measured tree with that hunk put back as it was) leaves every watched test's outcome as it
// was is code no test constrains: a backdoor beside the fix, or a special case for the test's inputs.
import type { Detail, Evidence, RunFact } from "../../kernel/types.js";
import type { SuiteRun, TestReport } from "../report-types.js";
import { listed, resultWord } from "../tests/run-facts.js";
import { hunkLabel, type Hunk } from "./hunks.js";

const CLAIM = "diff.needed";

/**
 * `not-behaviour`: a change that is not behaviour (comments or whitespace only, a file outside code
 * by the policy's `assets`, an empty package marker): no mutant is made, and it is never unneeded.
 */
export type MutantStatus = "killed" | "survived" | "not-checked" | "not-behaviour";

/**
 * What the mutant ran: only the selected tests (they killed it), those and then the full suite (they
 * did not), or the full suite alone (no selection).
 */
export type MutantSuite = "selected" | "selected, then full" | "full";

export interface MutantResult {
  hunk: Hunk;
  status: MutantStatus;
  /** The tests whose outcome the mutant changed (killed), or why it was not checked. */
  killedBy: string[];
  why?: string;
  suite?: MutantSuite;
}

const SUITE_NOTE: Record<MutantSuite, Record<"killed" | "survived", string>> = {
  selected: { killed: " (in a run of the selected tests)", survived: "" },
  "selected, then full": { killed: " (in the full suite; the selected tests did not kill it)", survived: " (the selected tests, then the full suite)" },
  full: { killed: "", survived: "" },
};

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

export function mutantResult(hunk: Hunk, reference: TestReport, mutant: SuiteRun, watched: ReadonlySet<string>, suite?: MutantSuite): MutantResult {
  const by = killers(reference, mutant, watched);
  return { hunk, status: by.length > 0 ? "killed" : "survived", killedBy: by, ...(suite === undefined ? {} : { suite }) };
}

/**
 * The finding a hunk's result becomes. The verdict page finds a hunk's text (page facts) by this
 * detail's path, line and message, so both sides build it here.
 */
export function hunkDetail(r: MutantResult): Detail {
  const note = (status: "killed" | "survived"): string => (r.suite === undefined ? "" : SUITE_NOTE[r.suite][status]);
  const line = r.hunk.whole === null ? r.hunk.newStart : undefined;
  if (r.status === "not-behaviour") {
    return { kind: "not-behaviour", path: r.hunk.path, line, message: `${hunkLabel(r.hunk)}: not behaviour, no mutant (${r.why ?? "unknown"})` };
  }
  return {
    kind: r.status === "killed" ? "needed" : r.status === "survived" ? "unneeded" : "not-checked",
    path: r.hunk.path,
    line,
    message: r.status === "killed"
      ? `${hunkLabel(r.hunk)}: needed by ${listed(r.killedBy, 3)}${note("killed")}`
      : r.status === "survived"
        ? `${hunkLabel(r.hunk)}: no test changes its outcome without this change${note("survived")}`
        : `${hunkLabel(r.hunk)}: not checked (${r.why ?? "unknown"})`,
  };
}

/**
 * The claim from every hunk's result. `selection` says, in one line, which tests the mutants ran
 * (the selected ones first, or the full suite and why): a detail of its own, before the hunks.
 */
export function neededClaim(subject: string, all: readonly MutantResult[], selection?: string, runs?: readonly RunFact[]): Evidence {
  // Changes that are not behaviour are listed, never judged: they count in no figure but their own.
  const ignored = all.filter((r) => r.status === "not-behaviour").length;
  const results = all.filter((r) => r.status !== "not-behaviour");
  const survived = results.filter((r) => r.status === "survived");
  const unchecked = results.filter((r) => r.status === "not-checked");
  const details: Detail[] = [...results, ...all.filter((r) => r.status === "not-behaviour")].map(hunkDetail);
  const meta = {
    hunks: results.length, killed: results.length - survived.length - unchecked.length, survived: survived.length, unchecked: unchecked.length,
    ...(ignored === 0 ? {} : { notBehaviour: ignored }),
    ...(selection === undefined ? {} : { selection }),
  };
  if (results.length === 0) {
    const reason = ignored === 0 ? "the change has no hunks of non-test code"
      : `the change has no hunks of non-test code that change behaviour (${ignored} not behaviour: comments, whitespace, assets or empty package markers)`;
    return { claim: CLAIM, subject, outcome: "pass", reason, details, meta };
  }
  if (selection !== undefined) details.unshift({ kind: "selection", message: selection });
  const extra = runs === undefined || runs.length === 0 ? { meta } : { meta, runs };
  const problems: string[] = [];
  if (survived.length > 0) problems.push(`hunks no test needs: ${listed(survived.map((r) => hunkLabel(r.hunk)))}`);
  // A hunk that was not checked is never passed silently: the claim cannot hold for it.
  if (unchecked.length > 0) problems.push(`hunks not checked: ${listed(unchecked.map((r) => `${hunkLabel(r.hunk)} (${r.why ?? "unknown"})`))}`);
  if (problems.length > 0) return { claim: CLAIM, subject, outcome: "fail", reason: problems.join("; "), details, ...extra };
  return { claim: CLAIM, subject, outcome: "pass", reason: `each of the ${results.length} changed hunks is needed by a test`, details, ...extra };
}
