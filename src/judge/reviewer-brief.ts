// The reviewer's brief (issue 13): for a CANDIDATE, what the human approver should look at before
// approving. A pure template over the signed verdict: each section is read from a claim's details,
// and says plainly when the gate did not measure it rather than implying "nothing found". Used by
// `/ranex explain` (markdown, below) and the verdict page (src/web/render-brief.ts, HTML).
import { statementOf, VERDICT_PREDICATE_TYPE, type VerdictPredicate } from "../attest/index.js";
import type { ClaimResult, Detail, Subject } from "../kernel/index.js";
import { BASE_AHEAD_KIND, BASE_AHEAD_PREFIX, BASE_CONTAINED_KIND } from "./base-ahead.js";

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
  /** Commits on the base tip the verdict was judged against that the head does not contain. */
  baseAhead: BriefSection;
}

export type BriefKey = keyof Omit<ReviewerBrief, "head">;

/** What a brief is read from: a verdict, or the predicate of its signed statement. */
export interface BriefInput {
  subject: Pick<Subject, "head" | "task">;
  claims: readonly ClaimResult[];
}

/** The detail kinds and claims each section reads. */
export const BRIEF_SOURCES = {
  selfAuthored: { kind: "self-authored" },
  unneeded: { claim: "diff.needed", kind: "unneeded" },
  flaky: { claim: "tests.stable", kind: "flaky" },
  outsideTask: { kind: "outside-task", bound: "task-scope" },
  baseAhead: { kind: BASE_AHEAD_KIND, contained: BASE_CONTAINED_KIND },
} as const;

/** Every section in the order it is shown, with its title. */
export const BRIEF_SECTIONS: readonly { key: BriefKey; title: string }[] = [
  { key: "selfAuthoredTests", title: "Tests the agent wrote itself (read these: they prove only what their author chose)" },
  { key: "unneededHunks", title: "Changed hunks no test needs" },
  { key: "flakyTargets", title: "Flaky targets" },
  { key: "outsideTaskScope", title: "Files outside the task's scope list (inside the policy's)" },
  { key: "baseAhead", title: "What the base branch's tip has that the head has not (the tip it was judged against)" },
];

export function reviewerBrief(verdict: BriefInput): ReviewerBrief {
  const { claims } = verdict;
  return {
    head: verdict.subject.head,
    selfAuthoredTests: byKind(claims, BRIEF_SOURCES.selfAuthored.kind, "the agent changed no test file", null),
    unneededHunks: fromClaim(claims, BRIEF_SOURCES.unneeded, "every changed hunk is needed by some test",
      "`diff.needed` is not in the policy's `require`: no hunk was reverted to see whether a test needs it"),
    flakyTargets: fromClaim(claims, BRIEF_SOURCES.flaky, "every target kept its outcome on every repeat",
      "`tests.stable` was not measured: the targets ran once"),
    outsideTaskScope: outsideTaskScope(verdict),
    baseAhead: baseAhead(claims),
  };
}

/**
 * A file outside the task's scope list fails diff.scope, so on a CANDIDATE this says what bound the
 * change: the task's list (named by diff.scope on a pass), or only the policy's when the task has none.
 */
function outsideTaskScope(verdict: BriefInput): BriefSection {
  if (verdict.subject.task === null) return { status: "not-measured", note: "the pull request names no task, so there is no task scope list to compare with" };
  const listed = byKind(verdict.claims, BRIEF_SOURCES.outsideTask.kind, "", null);
  if (listed.status === "listed") return listed;
  const scope = verdict.claims.find((c) => c.name === "diff.scope");
  if (scope === undefined || scope.status === "missing") return { status: "not-measured", note: "`diff.scope` is not in the policy's `require`: no changed file was held to a scope list" };
  const bound = scope.details.find((d) => d.kind === BRIEF_SOURCES.outsideTask.bound);
  if (bound !== undefined) return { status: "none", note: `every changed file is inside the task's scope list (${bound.message})` };
  if (scope.status === "pass") return { status: "none", note: "the task has no scope list of its own: the policy's `scope.allow` was the only bound" };
  return { status: "none", note: "no changed file is outside the task's scope list alone" };
}

/** Listed, "none" when the judge found the head contains the tip, "not measured" for verdicts signed before it looked. */
function baseAhead(claims: readonly ClaimResult[]): BriefSection {
  const listed = byKind(claims, BRIEF_SOURCES.baseAhead.kind, "", null);
  if (listed.status === "listed") {
    return { status: "listed", items: listed.items.map((i) => ({ ...i, text: i.text.startsWith(BASE_AHEAD_PREFIX) ? i.text.slice(BASE_AHEAD_PREFIX.length) : i.text })) };
  }
  if (claims.some((c) => c.details.some((d) => d.kind === BRIEF_SOURCES.baseAhead.contained))) {
    return { status: "none", note: "the head contains the base tip it was judged against" };
  }
  return { status: "not-measured", note: "this verdict was signed by a gate version that did not compare the head with the base tip: check the pull request is up to date" };
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

/** Markdown for `/ranex explain`. Item texts are untrusted: one line each, and no @mention pings anyone. */
export function renderBrief(brief: ReviewerBrief): string {
  const sections = BRIEF_SECTIONS.map(({ key, title }) => {
    const section = brief[key];
    if (section.status === "listed") {
      const lines = section.items.map((i) => `- ${i.path === undefined ? "" : `\`${i.path}${i.line === undefined ? "" : `:${i.line}`}\` `}${quietText(i.text)}`);
      return [`**${title}:**`, "", ...lines].join("\n");
    }
    return `**${title}:** ${section.status === "none" ? "none" : "not measured"}: ${section.note}.`;
  });
  return [`### Reviewer's brief for \`${brief.head.slice(0, 7)}\``, ...sections].join("\n\n");
}

/** The brief of a verdict statement's predicate when it is a CANDIDATE; null for anything else. */
export function briefOfPredicate(predicate: VerdictPredicate): ReviewerBrief | null {
  if (predicate.verdict !== "CANDIDATE" || !Array.isArray(predicate.claims) || typeof predicate.subject?.head !== "string") return null;
  return reviewerBrief(predicate);
}

/** The markdown brief of a journal entry that carries a CANDIDATE verdict; null for anything else. Unverified decoding: the caller read it from its own journal. */
export function briefOfEntry(entry: unknown): string | null {
  const payload = typeof entry === "object" && entry !== null && "payload" in entry ? (entry as { payload: unknown }).payload : entry;
  const statement = statementOf(payload);
  if (statement === null || statement.predicateType !== VERDICT_PREDICATE_TYPE) return null;
  const brief = briefOfPredicate(statement.predicate as VerdictPredicate);
  return brief === null ? null : renderBrief(brief);
}

function quietText(text: string): string {
  // A zero-width space after '@' keeps a commit subject or test name from mentioning anyone.
  return text.replace(/\s*\n\s*/g, " ").replace(/@(?=[A-Za-z0-9])/g, "@\u200b");
}
