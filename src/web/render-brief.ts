// The reviewer's brief at the top of a CANDIDATE's page (issue 13): the same model `/ranex explain`
// renders as markdown (src/judge/reviewer-brief.ts), here as escaped HTML. Findings are untrusted
// text; the notes are the brief's own words, whose `code` spans become <code>.
import type { VerdictPredicate } from "../attest/index.js";
import { BASE_AHEAD_KIND, BASE_CONTAINED_KIND } from "../judge/base-ahead.js";
import { BRIEF_SECTIONS, briefOfPredicate, reviewerBrief, type BriefItem, type BriefKey, type BriefSection } from "../judge/reviewer-brief.js";
import type { ClaimResult } from "../kernel/index.js";
import { html, type Html } from "./html.js";
import { hunkAnchor, hunkRows, type HunkRow } from "./render-hunks.js";

/** Detail kinds the brief shows: kept out of the claims' findings lists, where they would read as findings. */
export const BRIEF_ONLY_KINDS: readonly string[] = [BASE_AHEAD_KIND, BASE_CONTAINED_KIND];

export function withoutBriefOnly(claims: readonly ClaimResult[]): ClaimResult[] {
  return claims.map((c) => ({ ...c, details: c.details.filter((d) => d.kind === undefined || !BRIEF_ONLY_KINDS.includes(d.kind)) }));
}

/** The brief of a CANDIDATE; nothing for any other verdict. */
export function briefSection(predicate: VerdictPredicate): Html {
  const brief = briefOfPredicate(predicate);
  if (brief === null) return html``;
  const hunks = hunkRows(predicate.claims);
  const sections = BRIEF_SECTIONS.map(({ key, title }) => html`<h3>${title}</h3>${sectionBody(key, brief[key], hunks, predicate)}`);
  return html`<section aria-labelledby="brief" class="brief"><h2 id="brief">Reviewer's brief</h2><p>What to look at before approving <code>${brief.head.slice(0, 7)}</code>: the gate proved what it could; these are the places its proof is thinnest.</p>${sections}</section>`;
}

/**
 * For a verdict without a brief (a FAIL), what the base tip had that the head had not still
 * explains a regression the merge brought in; nothing when the gate did not record it.
 */
export function baseTipSection(predicate: VerdictPredicate): Html {
  if (briefOfPredicate(predicate) !== null) return html``;
  const section = reviewerBrief(predicate).baseAhead;
  if (section.status === "not-measured") return html``;
  return html`<section aria-labelledby="base-tip"><h2 id="base-tip">What the base tip has that the head has not</h2>${sectionBody("baseAhead", section, [], predicate)}</section>`;
}

function sectionBody(key: BriefKey, section: BriefSection, hunks: readonly HunkRow[], predicate: VerdictPredicate): Html {
  const after = key === "baseAhead" ? baseNote(predicate) : key === "unneededHunks" && hunks.length > 0 ? html`<p class="muted"><a href="#hunks">Every hunk and the test that needs it</a>.</p>` : html``;
  if (section.status === "listed") return html`<ul class="findings">${section.items.map((i) => listItem(i, key === "unneededHunks" ? hunkAnchor(hunks, i) : null))}</ul>${after}`;
  return html`<p><strong>${section.status === "none" ? "none" : "not measured"}</strong>: ${withCode(section.note)}.</p>${after}`;
}

function listItem(item: BriefItem, anchor: string | null): Html {
  const where = item.path === undefined ? html`` : html`<code class="break">${item.path}${item.line === undefined ? "" : `:${item.line}`}</code> `;
  return html`<li>${anchor === null ? where : html`<a href="#${anchor}">${where}</a>`}${item.text}</li>`;
}

/** The page knows the base tip the verdict was judged against, not where the branch is now. */
function baseNote(predicate: VerdictPredicate): Html {
  return html`<p class="muted">Judged against base tip <code>${predicate.subject.base.slice(0, 7)}</code>. This page cannot see whether the base branch moved on since: <code>/ranex explain</code> on the pull request compares with the branch's tip now.</p>`;
}

/** The brief's own notes mark names with backticks: those become <code>, everything else stays text. */
function withCode(note: string): Html {
  return html`${note.split("`").map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}
