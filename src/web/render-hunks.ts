// The changed hunks as `diff.needed` judged them (issue 13): each hunk, whether a test needs it and
// which, with the hunks no test needs highlighted. Each hunk has an anchor the files table and the
// reviewer's brief link to. The signed claim names a hunk by path and lines; its text comes from the
// page facts (unsigned, bounded), each hunk's found by the finding it belongs to. Facts without it
// (written before they kept it, or none at all) give the table of paths and lines instead.
import type { ClaimResult, Detail } from "../kernel/index.js";
import type { HunkText } from "../measure/needed/hunk-text.js";
import { html, type Html } from "./html.js";
import { hunkDiff, visible } from "./render-hunk-diff.js";

export const NEEDED_CLAIM = "diff.needed";
const KINDS: Record<string, { css: string; status: string }> = {
  unneeded: { css: "unneeded", status: "✗ no test needs it" },
  "not-checked": { css: "unchecked", status: "! not checked" },
  needed: { css: "needed", status: "✓ needed" },
  "not-behaviour": { css: "needed", status: "○ not behaviour (no mutant)" },
};

export interface HunkRow {
  detail: Detail;
  anchor: string;
}

/** The hunk details of `diff.needed`, each with its anchor on the page. */
export function hunkRows(claims: readonly ClaimResult[]): HunkRow[] {
  const claim = claims.find((c) => c.name === NEEDED_CLAIM);
  if (claim === undefined) return [];
  return claim.details.filter((d) => d.kind !== undefined && d.kind in KINDS).map((detail, i) => ({ detail, anchor: `hunk-${i + 1}` }));
}

/** The anchor of the hunk a finding names (same path, line and message), or null. */
export function hunkAnchor(rows: readonly HunkRow[], finding: { path?: string; line?: number; text: string }): string | null {
  const row = rows.find((r) => r.detail.path === finding.path && r.detail.line === finding.line && r.detail.message === finding.text);
  return row?.anchor ?? null;
}

/** Anchors of the unneeded hunks, by path: the files table marks those rows. */
export function unneededByPath(rows: readonly HunkRow[]): Map<string, HunkRow[]> {
  const byPath = new Map<string, HunkRow[]>();
  for (const row of rows) {
    if (row.detail.kind !== "unneeded" || row.detail.path === undefined) continue;
    byPath.set(row.detail.path, [...(byPath.get(row.detail.path) ?? []), row]);
  }
  return byPath;
}

/** The hunks section of "What changed": each hunk's diff when the page facts kept it, else a table. */
export function hunksSection(claims: readonly ClaimResult[], texts: readonly HunkText[] | undefined): Html {
  const claim = claims.find((c) => c.name === NEEDED_CLAIM);
  if (claim === undefined) return html``;
  const rows = hunkRows(claims);
  const body = rows.length === 0
    ? html`<p>${claim.reason}</p>`
    : texts === undefined
      ? html`<table><caption class="muted">Each changed hunk of code was put back as it was on the merge base; a test that then changes its outcome needs the hunk. Highlighted: no test needs it. (The hunks' text was not kept beside this journal entry.)</caption><thead><tr><th scope="col">hunk</th><th scope="col">result</th><th scope="col">finding</th></tr></thead><tbody>${rows.map(hunkRow)}</tbody></table>`
      : html`<p class="muted">Each changed hunk of code was put back as it was on the merge base; a test that then changes its outcome needs the hunk. Hunks no test needs are open and marked; needed ones are folded. Line numbers: base (merge base) and head. The text is from the page facts (unsigned); the findings are signed.</p>${rows.map((row) => hunkBlock(row, textOf(row, texts)))}`;
  return html`<h3 id="hunks">Changed hunks: does a test need each? <span class="status ${claim.status}">${claim.status}</span></h3>${body}`;
}

function kindOf(detail: Detail): { css: string; status: string } {
  return KINDS[detail.kind ?? ""] ?? { css: "", status: "" };
}

function statusClass(css: string): string {
  return css === "needed" ? "pass" : css === "unneeded" ? "fail" : "missing";
}

function hunkRow({ detail, anchor }: HunkRow): Html {
  const kind = kindOf(detail);
  const where = detail.path === undefined ? "" : `${detail.path}${detail.line === undefined ? "" : `:${detail.line}`}`;
  return html`<tr id="${anchor}" class="${kind.css}"><td class="break"><code>${where}</code></td><td><span class="status ${statusClass(kind.css)}">${kind.status}</span></td><td class="break">${detail.message}</td></tr>`;
}

/** The hunk's text kept for the finding (same path, line and message), or null. */
function textOf({ detail }: HunkRow, texts: readonly HunkText[]): HunkText | null {
  return texts.find((t) => t.path === detail.path && t.line === detail.line && t.message === detail.message) ?? null;
}

/**
 * One hunk: its status in words (not only colour), its finding, its lines. A needed hunk is folded
 * under its finding; the rest are open, a hunk no test needs framed and marked.
 */
function hunkBlock(row: HunkRow, text: HunkText | null): Html {
  const kind = kindOf(row.detail);
  const head = html`<span class="status ${statusClass(kind.css)}">${kind.status}</span> <span class="break">${visible(row.detail.message)}</span>`;
  const diff = text === null ? html`<p class="muted">The text of this hunk was not kept.</p>` : hunkDiff(text);
  if (kind.css === "needed") return html`<details id="${row.anchor}" class="hunk needed"><summary>${head}</summary>${diff}</details>`;
  return html`<div id="${row.anchor}" class="hunk ${kind.css}" role="group" aria-label="${kind.status}"><p class="hunk-head">${head}</p>${diff}</div>`;
}
