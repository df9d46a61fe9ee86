// What the verdict page shows of each hunk diff.needed examined: its removed and added lines with
// their numbers. The trusted parent already holds every hunk's lines (it wrote the mutants from
// them); this keeps a bounded copy for the page facts, never for the signed verdict, which names a
// hunk by path and lines only. Bounded because a change may add a 10 000-line file or one minified
// line of a megabyte, and the page must stay small. Pure; the text stays untrusted (the page escapes it).
import { hunkDetail, type MutantResult } from "./claim.js";

export interface HunkLine {
  op: "-" | "+";
  /** 1-based: on the merge base's side for a removed line, on the head's side for an added one. */
  line: number;
  text: string;
  /** Characters cut from the end of a long line. */
  cutChars?: number;
}

export interface HunkText {
  /** The finding this is the text of: diff.needed's detail (path, line, message), exactly as signed. */
  path: string;
  line?: number;
  message: string;
  /** Removed lines, then added lines, as far as the limits allow. */
  lines: HunkLine[];
  /** Lines left out (over the limit per hunk, or the byte budget spent), removed and added. */
  moreRemoved: number;
  moreAdded: number;
}

export interface HunkTextLimits {
  linesPerHunk: number;
  charsPerLine: number;
  /** UTF-8 bytes of line text across every hunk. */
  totalBytes: number;
}

export const HUNK_TEXT_LIMITS: HunkTextLimits = { linesPerHunk: 24, charsPerLine: 240, totalBytes: 16 * 1024 };

/** The budget goes first to what a reviewer must read: hunks no test needs, then those not checked. */
const PRIORITY: Record<MutantResult["status"], number> = { survived: 0, "not-checked": 1, killed: 2, "not-behaviour": 3 };

/** Each result's text, in the results' order; the byte budget is spent in order of priority. */
export function hunkTexts(results: readonly MutantResult[], limits: HunkTextLimits = HUNK_TEXT_LIMITS): HunkText[] {
  const texts: HunkText[] = new Array(results.length);
  let budget = limits.totalBytes;
  const order = results.map((r, i) => ({ r, i })).sort((a, b) => PRIORITY[a.r.status] - PRIORITY[b.r.status] || a.i - b.i);
  for (const { r, i } of order) {
    const text = hunkText(r, limits, budget);
    budget -= text.lines.reduce((sum, l) => sum + Buffer.byteLength(l.text, "utf8"), 0);
    texts[i] = text;
  }
  return texts;
}

function hunkText(result: MutantResult, limits: HunkTextLimits, budget: number): HunkText {
  const { hunk } = result;
  const detail = hunkDetail(result);
  const [keepRemoved, keepAdded] = split(hunk.oldLines.length, hunk.newLines.length, limits.linesPerHunk);
  const wanted: HunkLine[] = [
    ...hunk.oldLines.slice(0, keepRemoved).map((text, k) => ({ op: "-" as const, line: hunk.oldStart + k, text })),
    ...hunk.newLines.slice(0, keepAdded).map((text, k) => ({ op: "+" as const, line: hunk.newStart + k, text })),
  ];
  const lines: HunkLine[] = [];
  for (const wantedLine of wanted) {
    const cut = cutLine(wantedLine.text, limits.charsPerLine);
    const bytes = Buffer.byteLength(cut.text, "utf8");
    if (bytes > budget) break;
    budget -= bytes;
    lines.push({ op: wantedLine.op, line: wantedLine.line, text: cut.text, ...(cut.cutChars > 0 ? { cutChars: cut.cutChars } : {}) });
  }
  const removed = lines.filter((l) => l.op === "-").length;
  return {
    path: detail.path ?? hunk.path, ...(detail.line === undefined ? {} : { line: detail.line }), message: detail.message, lines,
    moreRemoved: hunk.oldLines.length - removed, moreAdded: hunk.newLines.length - (lines.length - removed),
  };
}

/**
 * How many removed and added lines fit in `cap`: each side gets at least half when both need more,
 * and what one side leaves unused goes to the other (an unneeded hunk is read by its added lines).
 */
function split(removed: number, added: number, cap: number): [number, number] {
  const half = Math.ceil(cap / 2);
  const keepAdded = Math.min(added, Math.max(cap - removed, half));
  const keepRemoved = Math.min(removed, cap - keepAdded);
  return [keepRemoved, Math.min(added, cap - keepRemoved)];
}

/** The first `max` code points of a line (never half a surrogate pair), and how many were cut. */
function cutLine(text: string, max: number): { text: string; cutChars: number } {
  let count = 0;
  let end = 0;
  for (const ch of text) {
    if (count === max) break;
    count++;
    end += ch.length;
  }
  if (end === text.length) return { text, cutChars: 0 };
  return { text: text.slice(0, end), cutChars: codePoints(text.slice(end)) };
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    count++;
  }
  return count;
}
