import type { Detail } from "../../kernel/types.js";
import { shown } from "./context.js";
import type { AddedLines } from "../../workspace/types.js";
import { HARNESS_PATTERNS } from "./harness-patterns.js";
import type { TargetName } from "./target-names.js";

/** Enough of the line to recognise it, never the whole thing (lines can be huge or hold secrets). */
const EXCERPT_CHARS = 60;
/** Findings kept per file; the rest are counted so a flood of one pattern cannot bury the others. */
const PER_FILE = 10;

/**
 * How the scan treats a changed file: `skip` (frozen: changing it already fails diff.frozen),
 * `test` (a new test file: code too, but honest tests stub exits and patch modules), or `code`.
 */
export type ScanKind = "skip" | "test" | "code";

function excerpt(text: string, index: number, length: number): string {
  const start = Math.max(0, index - Math.floor((EXCERPT_CHARS - length) / 2));
  const cut = text.slice(start, start + Math.max(EXCERPT_CHARS, length)).trim();
  return shown(`${start > 0 ? "…" : ""}${cut}${start + EXCERPT_CHARS < text.length ? "…" : ""}`);
}

interface Hit { name: string; index: number; length: number; kind: string }

function hitsIn(text: string, kind: ScanKind, targets: readonly TargetName[]): Hit[] {
  const hits: Hit[] = [];
  for (const { name, pattern, scope } of HARNESS_PATTERNS) {
    if (scope !== "all" && scope !== kind) continue;
    const match = pattern.exec(text);
    if (match !== null) hits.push({ name, index: match.index, length: match[0].length, kind: "harness-reference" });
  }
  // Tests name tests all the time; only the code under test has no business knowing them.
  if (kind === "code") {
    for (const target of targets) {
      const match = target.pattern.exec(text);
      if (match !== null) {
        hits.push({ name: `the target test ${shown(target.name)}`, index: match.index, length: match[0].length, kind: "names-target" });
      }
    }
  }
  return hits;
}

/**
 * Added lines that reference the test harness, the report or the exit path (in non-test code and in
 * the PR's new test files), and added non-test code that names a target test.
 */
export function harnessReferences(
  added: readonly AddedLines[], kindOf: (path: string) => ScanKind, targets: readonly TargetName[] = [],
): Detail[] {
  const details: Detail[] = [];
  for (const file of added) {
    const kind = kindOf(file.path);
    if (kind === "skip") continue;
    let kept = 0;
    let dropped = 0;
    for (const { line, text } of file.lines) {
      for (const hit of hitsIn(text, kind, targets)) {
        if (kept >= PER_FILE) { dropped++; continue; }
        kept++;
        details.push({
          path: file.path, line, kind: hit.kind,
          message: `${shown(file.path)}:${line}: ${hit.kind === "names-target" ? "names" : "references"} ${hit.name}: ${excerpt(text, hit.index, hit.length)}`,
        });
      }
    }
    if (dropped > 0) {
      details.push({ path: file.path, kind: "harness-reference", message: `${shown(file.path)}: ${dropped} more harness references not listed` });
    }
  }
  return details;
}
