// One hunk of diff.needed as a small unified diff: removed lines numbered on the merge base's side,
// added lines on the head's. The lines are the pull request's code, untrusted: the `html` tag escapes
// markup, and characters that would hide or reorder what a reviewer reads (bidi overrides, zero-width
// marks, other controls: the diff claims' rule, src/measure/diff/context.ts) are shown by name
// instead, as the CLI escapes them, and the hunk says it holds them (Trojan Source).
import { hasUnsafeChar } from "../measure/diff/context.js";
import type { HunkLine, HunkText } from "../measure/needed/hunk-text.js";
import { html, type Html } from "./html.js";

/** The hunk's lines as a table, with a note for every line or character the page facts left out. */
export function hunkDiff(text: HunkText): Html {
  if (text.lines.length === 0 && text.moreRemoved === 0 && text.moreAdded === 0) return html`<p class="muted">No line to show.</p>`;
  const removed = text.lines.filter((l) => l.op === "-");
  const added = text.lines.filter((l) => l.op === "+");
  const hidden = text.lines.reduce((n, l) => n + unsafeCount(l.text), 0);
  const warning = hidden === 0 ? html`` : html`<p class="hidden-chars"><strong>${hidden} invisible or direction-changing ${hidden === 1 ? "character" : "characters"}</strong> in these lines, shown by code point (<span class="char">U+202E</span>): what an editor would display may differ from what runs.</p>`;
  return html`${warning}<table class="diff"><thead><tr><th scope="col">base</th><th scope="col">head</th><th scope="col"><span class="sr">change</span></th><th scope="col">code</th></tr></thead><tbody>${
    removed.map(diffRow)}${more(text.moreRemoved, "removed")}${added.map(diffRow)}${more(text.moreAdded, "added")}</tbody></table>`;
}

function diffRow(line: HunkLine): Html {
  const removed = line.op === "-";
  const cut = line.cutChars === undefined ? html`` : html`<span class="cut"> … ${line.cutChars} more ${line.cutChars === 1 ? "character" : "characters"}</span>`;
  return html`<tr class="${removed ? "del" : "add"}"><td class="num">${removed ? line.line : ""}</td><td class="num">${removed ? "" : line.line}</td><td class="op"><span aria-hidden="true">${removed ? "-" : "+"}</span><span class="sr">${removed ? "removed" : "added"}</span></td><td class="code" dir="ltr">${visible(line.text)}${cut}</td></tr>`;
}

function more(count: number, what: "removed" | "added"): Html {
  if (count === 0) return html``;
  return html`<tr class="more"><td colspan="4">… ${count} more ${what} ${count === 1 ? "line" : "lines"} (not kept for this page)</td></tr>`;
}

/**
 * The text with every unsafe character (except the tab, which code is full of) replaced by its code
 * point in a marked span; everything else escaped as text.
 */
export function visible(text: string): Html {
  const parts: (string | Html)[] = [];
  let run = "";
  for (const ch of text) {
    if (ch === "\t" || !hasUnsafeChar(ch)) {
      run += ch;
      continue;
    }
    if (run !== "") parts.push(run);
    run = "";
    parts.push(html`<span class="char">${codePoint(ch)}</span>`);
  }
  if (run !== "") parts.push(run);
  return html`${parts}`;
}

function unsafeCount(text: string): number {
  let count = 0;
  for (const ch of text) if (ch !== "\t" && hasUnsafeChar(ch)) count++;
  return count;
}

function codePoint(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}
