// The reviewer's brief (issue 13): for a CANDIDATE, what the human approver should look at before
// approving. A pure template over the signed verdict: each section is read from a claim's details,
// and says plainly when the gate did not measure it rather than implying "nothing found".
import { statementOf, VERDICT_PREDICATE_TYPE, type VerdictPredicate } from "../../attest/index.js";
import type { ClaimResult, Detail, Verdict } from "../../kernel/index.js";

/** A section's findings, or why there are none to show. */
export type BriefSection =
  | { status: "listed"; items: BriefItem[] }
  | { status: "none"; note: string }
  | { status: "not-measured"; note: string };

export interface BriefItem {
  path?: string;
  line?: number;
  text: string;
}

export interface ReviewerBrief {
  head: string;
  /** Tests the agent wrote or changed itself: they prove only what their author chose to check. */
  selfAuthoredTests: BriefSection;
  /** Changed hunks no test needs (claim `diff.needed`, opt-in). */
  unneededHunks: BriefSection;
  /** Targets whose outcome changed between repeats (claim `tests.stable`). */
  flakyTargets: BriefSection;
  /** Files changed outside the task's scope list but inside the policy's. */
  outsideTaskScope: BriefSection;
  /** Commits on the base branch's tip that the head does not contain. */
  baseAhead: BriefSection;
}

/** The detail kinds and claims each section reads; measurements added later fill them in. */
export const BRIEF_SOURCES = {
  selfAuthored: { kind: "self-authored" },
  unneeded: { claim: "diff.needed", kind: "unneeded" },
  flaky: { claim: "tests.stable", kind: "flaky" },
  outsideTask: { kind: "outside-task" },
  baseAhead: { kind: "base-ahead" },
} as const;

export function reviewerBrief(verdict: Verdict): ReviewerBrief {
  return {
    head: verdict.subject.head,
    selfAuthoredTests: byKind(verdict.claims, BRIEF_SOURCES.selfAuthored.kind, "the agent changed no test file", null),
    unneededHunks: fromClaim(verdict.claims, BRIEF_SOURCES.unneeded, "every changed hunk is needed by some test",
      "`diff.needed` is not in the policy's `require`: no hunk was reverted to see whether a test needs it"),
    flakyTargets: fromClaim(verdict.claims, BRIEF_SOURCES.flaky, "every target kept its outcome on every repeat",
      "`tests.stable` was not measured: the targets ran once"),
    outsideTaskScope: verdict.subject.task === null
      ? { status: "not-measured", note: "the pull request names no task, so there is no task scope list to compare with" }
      : byKind(verdict.claims, BRIEF_SOURCES.outsideTask.kind, "every changed file is inside the task's scope list", null),
    baseAhead: byKind(verdict.claims, BRIEF_SOURCES.baseAhead.kind, "the head contains the base branch's tip",
      "this gate version does not compare the head with the base branch's current tip: check the pull request is up to date"),
  };
}

/** A section from a claim that may be absent: absent is "not measured", never "nothing found". */
function fromClaim(claims: readonly ClaimResult[], source: { claim: string; kind: string }, none: string, notMeasured: string): BriefSection {
  const claim = claims.find((c) => c.name === source.claim);
  if (claim === undefined || claim.status === "missing") return { status: "not-measured", note: notMeasured };
  const items = claim.details.filter((d) => d.kind === source.kind || (d.kind === undefined && claim.status === "fail")).map(item);
  return items.length === 0 ? { status: "none", note: none } : { status: "listed", items };
}

/** A section from details of one kind on any claim; `notMeasured` when no claim could have carried them. */
function byKind(claims: readonly ClaimResult[], kind: string, none: string, notMeasured: string | null): BriefSection {
  const items = claims.flatMap((c) => c.details.filter((d) => d.kind === kind)).map(item);
  if (items.length > 0) return { status: "listed", items: unique(items) };
  return notMeasured === null ? { status: "none", note: none } : { status: "not-measured", note: notMeasured };
}

function item(detail: Detail): BriefItem {
  return { ...(detail.path === undefined ? {} : { path: detail.path }), ...(detail.line === undefined ? {} : { line: detail.line }), text: detail.message };
}

function unique(items: BriefItem[]): BriefItem[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const key = `${i.path ?? ""}:${i.line ?? ""}:${i.text}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

const TITLES: [keyof Omit<ReviewerBrief, "head">, string][] = [
  ["selfAuthoredTests", "Tests the agent wrote itself (read these: they prove only what their author chose)"],
  ["unneededHunks", "Changed hunks no test needs"],
  ["flakyTargets", "Flaky targets"],
  ["outsideTaskScope", "Files outside the task's scope list (inside the policy's)"],
  ["baseAhead", "What the base branch's tip has that the head has not"],
];

/** Markdown for `/ranex explain` and the verdict page. */
export function renderBrief(brief: ReviewerBrief): string {
  const sections = TITLES.map(([key, title]) => {
    const section = brief[key];
    if (section.status === "listed") {
      const lines = section.items.map((i) => `- ${i.path === undefined ? "" : `\`${i.path}${i.line === undefined ? "" : `:${i.line}`}\` `}${oneLine(i.text)}`);
      return [`**${title}:**`, "", ...lines].join("\n");
    }
    return `**${title}:** ${section.status === "none" ? "none" : "not measured"}: ${section.note}.`;
  });
  return [`### Reviewer's brief for \`${brief.head.slice(0, 7)}\``, ...sections].join("\n\n");
}

/** The brief of a journal entry that carries a CANDIDATE verdict; null for anything else. Unverified decoding: the caller read it from its own journal. */
export function briefOfEntry(entry: unknown): string | null {
  const payload = typeof entry === "object" && entry !== null && "payload" in entry ? (entry as { payload: unknown }).payload : entry;
  const statement = statementOf(payload);
  if (statement === null || statement.predicateType !== VERDICT_PREDICATE_TYPE) return null;
  const predicate = statement.predicate as VerdictPredicate;
  if (predicate.verdict !== "CANDIDATE" || !Array.isArray(predicate.claims) || typeof predicate.subject?.head !== "string") return null;
  return renderBrief(reviewerBrief({ verdict: predicate.verdict, class: predicate.class, subject: predicate.subject, claims: predicate.claims, missing: predicate.missing, reasons: predicate.reasons }));
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}

/**
 * The brief for a `ranex/judge` check run's `external_id`, read from this gate's own journal (never
 * from the check run's text). A journal that cannot be read is said, not hidden.
 */
export async function briefForCheckRun(findEntry: ((id: string) => Promise<unknown>) | undefined, externalId: string | null | undefined): Promise<string | null> {
  if (findEntry === undefined || externalId === null || externalId === undefined || externalId === "") return null;
  try {
    const entry = await findEntry(externalId);
    return entry === null ? `_The reviewer's brief is missing: journal entry \`${externalId}\` is not in this gate's journal._` : briefOfEntry(entry);
  } catch (err) {
    return `_The reviewer's brief could not be read from the journal: ${(err as Error).message.split("\n")[0]}_`;
  }
}
