// One repository's journal entries, newest first, a page at a time. Verdicts link to their pages
// (each link carries that verdict's own token); other entries (rejudge requests) are listed plainly.
import { html, type Html } from "./html.js";
import type { ListedEntry } from "./journal-view.js";
import { page } from "./layout.js";

export interface JournalPage {
  repository: string;
  entries: readonly ListedEntry[];
  page: number;
  more: boolean;
  total: number;
  links: { verdict: (journalId: string) => string; page: (n: number) => string };
}

export function renderJournalPage(input: JournalPage): string {
  const rows = input.entries.map(({ entry, predicate }) => {
    const verdict = typeof predicate.verdict === "string" ? predicate.verdict : null;
    const cls = typeof predicate.class === "string" ? predicate.class : null;
    const subject = isRecord(predicate.subject) ? predicate.subject : {};
    const head = typeof subject.head === "string" ? subject.head : typeof predicate.head === "string" ? predicate.head : "";
    const time = typeof predicate.time === "string" ? predicate.time : "";
    const what: Html = entry.kind === "verdict" && verdict !== null
      ? html`<a href="${input.links.verdict(entry.id)}"><strong>${verdict}</strong>${cls === null ? "" : ` (${cls})`}</a>`
      : html`${entry.kind}${typeof predicate.requestedBy === "string" ? ` by ${predicate.requestedBy}` : ""}`;
    return html`<tr><td>${entry.sequence}</td><td>${what}</td><td><code>${head.slice(0, 12)}</code></td><td>${time}</td><td class="break"><code>${entry.hash.slice(0, 16)}…</code></td></tr>`;
  });
  const nav = html`<nav class="pages" aria-label="pages">${input.page > 1 ? html`<a href="${input.links.page(input.page - 1)}" rel="prev">← newer</a>` : ""}${input.more ? html`<a href="${input.links.page(input.page + 1)}" rel="next">older →</a>` : ""}</nav>`;
  const body = input.entries.length === 0
    ? html`<p>No journal entries on this page.</p>`
    : html`<table><thead><tr><th scope="col">entry</th><th scope="col">what</th><th scope="col">head</th><th scope="col">time</th><th scope="col">hash</th></tr></thead><tbody>${rows}</tbody></table>`;
  return page(`Journal · ${input.repository}`, html`<h1>Journal of <span class="break">${input.repository}</span></h1><p class="muted">${input.total} entries, newest first · page ${input.page}</p>${body}${nav}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
