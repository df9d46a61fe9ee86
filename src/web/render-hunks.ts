// The changed hunks as `diff.needed` judged them (issue 13): each hunk, whether a test needs it and
// which, with the hunks no test needs highlighted. Each row has an anchor the files table and the
// reviewer's brief link to. The page has no hunk text (page facts keep file facts only): the rows
// name path and lines, as the signed claim does.
import type { ClaimResult, Detail } from "../kernel/index.js";
import { html, type Html } from "./html.js";

export const NEEDED_CLAIM = "diff.needed";
const KINDS: Record<string, { css: string; status: string }> = {
  unneeded: { css: "unneeded", status: "✗ no test needs it" },
  "not-checked": { css: "unchecked", status: "! not checked" },
  needed: { css: "needed", status: "✓ needed" },
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

export function hunksTable(claims: readonly ClaimResult[]): Html {
  const claim = claims.find((c) => c.name === NEEDED_CLAIM);
  if (claim === undefined) return html``;
  const rows = hunkRows(claims);
  const body = rows.length === 0
    ? html`<p>${claim.reason}</p>`
    : html`<table><caption class="muted">Each changed hunk of code was put back as it was on the merge base; a test that then changes its outcome needs the hunk. Highlighted: no test needs it.</caption><thead><tr><th scope="col">hunk</th><th scope="col">result</th><th scope="col">finding</th></tr></thead><tbody>${rows.map(hunkRow)}</tbody></table>`;
  return html`<h3 id="hunks">Changed hunks: does a test need each? <span class="status ${claim.status}">${claim.status}</span></h3>${body}`;
}

function hunkRow({ detail, anchor }: HunkRow): Html {
  const kind = KINDS[detail.kind ?? ""] ?? { css: "", status: "" };
  const where = detail.path === undefined ? "" : `${detail.path}${detail.line === undefined ? "" : `:${detail.line}`}`;
  return html`<tr id="${anchor}" class="${kind.css}"><td class="break"><code>${where}</code></td><td><span class="status ${kind.css === "needed" ? "pass" : kind.css === "unneeded" ? "fail" : "missing"}">${kind.status}</span></td><td class="break">${detail.message}</td></tr>`;
}
