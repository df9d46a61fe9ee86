// diff.needed works hunk by hunk: each changed region of non-test code, between the merge base and
// the head, is one candidate a test may or may not need. A mutant is the measured tree with exactly
// one hunk put back as it was. Pure functions over file texts; git reads them elsewhere.
import { structuredPatch } from "diff";

export interface Hunk {
  path: string;
  /** 1-based line of the hunk on the head side (first changed line; for a pure deletion, the line after it). */
  newStart: number;
  /**
   * 1-based line of the hunk on the merge base's side (first removed line; for a pure addition, the
   * line it came before). Shown beside the removed lines on the verdict page.
   */
  oldStart: number;
  /** The head's lines of this hunk (empty for a pure deletion). */
  newLines: string[];
  /** The merge base's lines that the hunk replaced (empty for a pure addition). */
  oldLines: string[];
  /**
   * The whole file was added or deleted: reverting means removing it, or bringing it back. `file`:
   * a file judged as a whole without lines (binary, a link, over the size limit): never a mutant.
   */
  whole: "added" | "deleted" | "file" | null;
}

/** Lines of a text; a final newline does not make an extra empty line. */
function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The hunks that turn `before` into `after` (null: the file is absent on that side), no context. */
export function hunksOf(path: string, before: string | null, after: string | null): Hunk[] {
  if (before === null && after === null) return [];
  if (before === null) return [{ path, newStart: 1, oldStart: 1, newLines: linesOf(after as string), oldLines: [], whole: "added" }];
  if (after === null) return [{ path, newStart: 1, oldStart: 1, newLines: [], oldLines: linesOf(before), whole: "deleted" }];
  const patch = structuredPatch(path, path, before, after, "", "", { context: 0 });
  return patch.hunks.map((h) => {
    const changed = h.lines.filter((line) => !line.startsWith("\\"));
    return {
      path,
      // For a pure deletion this is the head line the deleted lines stood before.
      newStart: h.newStart,
      oldStart: h.oldStart,
      newLines: changed.filter((line) => line.startsWith("+")).map((line) => line.slice(1)),
      oldLines: changed.filter((line) => line.startsWith("-")).map((line) => line.slice(1)),
      whole: null,
    };
  });
}

/** What a mutant does to one file: its new content, or null to remove the file. */
export interface Reverted {
  content: string | null;
}

/**
 * The measured file with one hunk put back. The measured tree may be the head merged into a newer
 * base, so the hunk's lines are searched for near where the head had them rather than trusted by line
 * number. Null when they cannot be found exactly once nearest that place (the hunk is not checked).
 */
export function revertHunk(measured: string | null, hunk: Hunk): Reverted | null {
  if (hunk.whole === "added") return measured === null ? null : { content: null };
  if (hunk.whole === "deleted") return measured === null ? { content: hunk.oldLines.map((l) => `${l}\n`).join("") } : null;
  if (hunk.whole === "file") return null;
  if (measured === null) return null;
  const endsWithNewline = measured.endsWith("\n");
  const lines = linesOf(measured);
  const at = locate(lines, hunk);
  if (at === null) return null;
  const result = [...lines.slice(0, at), ...hunk.oldLines, ...lines.slice(at + hunk.newLines.length)];
  const text = result.join("\n");
  return { content: result.length === 0 ? "" : endsWithNewline ? `${text}\n` : text };
}

/** Index (0-based) where the hunk's head lines start in `lines`, nearest the head's own position. */
function locate(lines: readonly string[], hunk: Hunk): number | null {
  const expected = Math.min(Math.max(hunk.newStart - 1, 0), lines.length);
  // A pure deletion has no lines to find: the place is the head's position, if the file is long enough.
  if (hunk.newLines.length === 0) return expected <= lines.length ? expected : null;
  let best: number | null = null;
  for (let i = 0; i + hunk.newLines.length <= lines.length; i++) {
    if (!hunk.newLines.every((line, k) => lines[i + k] === line)) continue;
    if (best === null || Math.abs(i - expected) < Math.abs(best - expected)) best = i;
  }
  return best;
}

/** `path:12-14` (head lines), or `path (added file)`: how a hunk is named to a person. */
export function hunkLabel(hunk: Hunk): string {
  if (hunk.whole === "added") return `${hunk.path} (added file)`;
  if (hunk.whole === "deleted") return `${hunk.path} (deleted file)`;
  // A file without lines (binary, a link) is named as a file: it has no lines, deleted or added.
  if (hunk.whole === "file") return `${hunk.path} (whole file)`;
  if (hunk.newLines.length === 0) return `${hunk.path}:${hunk.newStart} (deleted lines)`;
  const end = hunk.newStart + hunk.newLines.length - 1;
  return end === hunk.newStart ? `${hunk.path}:${hunk.newStart}` : `${hunk.path}:${hunk.newStart}-${end}`;
}
