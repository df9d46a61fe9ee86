// What the base tip has that the head has not, as details of the signed verdict (issue 13): the
// reviewer's brief lists them, so an approver knows which of the base's commits the head never saw
// (the tests saw them only merged in). Information for a person: these details never change a
// claim's status, and the commit subjects are the base's words, not the agent's (invariant 8).
import type { Detail, Evidence } from "../kernel/index.js";
import { escapeUnsafe, listed, plural, shown } from "../measure/diff/context.js";
import type { CommitsAhead } from "../workspace/index.js";

export const BASE_AHEAD_KIND = "base-ahead";
export const BASE_CONTAINED_KIND = "base-contained";
/** Opens each commit's message, so the detail reads right wherever it is listed (the brief drops it). */
export const BASE_AHEAD_PREFIX = "on the base tip, not in the head: ";

/** Commits listed one by one; the rest are counted. Enough for a review, bounded for the verdict. */
export const BASE_AHEAD_LIMIT = 20;
const PATHS_SHOWN = 5;
const SUBJECT_CHARS = 120;

/**
 * Where the details ride: `tests.regression` measured the head merged into the tip, which holds these
 * commits; without it, the first diff claim the gate requires; else the first required claim.
 */
const CARRIERS = ["tests.regression", "diff.scope", "diff.frozen", "diff.safety"];

/**
 * One detail per listed commit (newest first) and one counting those not listed; or one saying the
 * head contains the tip. `changed` are the pull request's own paths: a base commit that touches one
 * of them is where a semantic conflict would come from, so they are named first.
 */
export function baseAheadDetails(tip: string, head: string, ahead: CommitsAhead, changed: readonly string[]): Detail[] {
  if (ahead.total === 0) {
    return [{ kind: BASE_CONTAINED_KIND, message: `head ${head.slice(0, 7)} contains base tip ${tip.slice(0, 7)}: the base has no commit the head lacks` }];
  }
  const own = new Set(changed);
  const details: Detail[] = ahead.commits.map((c) => {
    const both = c.paths.filter((p) => own.has(p));
    const paths = [...both, ...c.paths.filter((p) => !own.has(p))].map(shown);
    const touches = paths.length === 0 ? "changes no file" : `changes ${listed(paths, PATHS_SHOWN)}`;
    const overlap = both.length === 0 ? "" : `; the pull request changes ${listed(both.map(shown), PATHS_SHOWN)} too`;
    return { kind: BASE_AHEAD_KIND, message: `${BASE_AHEAD_PREFIX}${c.sha.slice(0, 7)} ${subjectLine(c.subject)} (${touches}${overlap})` };
  });
  const rest = ahead.total - ahead.commits.length;
  if (rest > 0) {
    details.push({
      kind: BASE_AHEAD_KIND,
      message: `and ${plural(rest, "more commit")} on the base tip, not in the head (${ahead.total} in all: git log ${head.slice(0, 7)}..${tip.slice(0, 7)})`,
    });
  }
  return details;
}

/** The details added to the evidence of the carrying claim (every piece of it, so a failing side shows them too). */
export function carryBaseAhead(evidence: readonly Evidence[], required: readonly string[], details: readonly Detail[]): Evidence[] {
  if (details.length === 0) return [...evidence];
  const measured = new Set(evidence.filter((e) => required.includes(e.claim)).map((e) => e.claim));
  const carrier = CARRIERS.find((c) => measured.has(c)) ?? required.find((c) => measured.has(c));
  if (carrier === undefined) return [...evidence];
  return evidence.map((e) => (e.claim === carrier ? { ...e, details: [...e.details, ...details] } : e));
}

/** One printable line: unsafe characters escaped, long subjects cut. */
function subjectLine(subject: string): string {
  const chars = [...escapeUnsafe(subject.trim())];
  if (chars.length === 0) return "(no subject)";
  return chars.length > SUBJECT_CHARS ? `${chars.slice(0, SUBJECT_CHARS - 1).join("")}…` : chars.join("");
}
