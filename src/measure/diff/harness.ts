import type { Detail } from "../../kernel/types.js";
import { shown, type PathMatcher } from "./context.js";
import type { AddedLines } from "../../workspace/types.js";

// Code under test runs inside the test runner's process, so it can try to lie: patch the runner,
// write the report itself, or leave with exit status 0 before a failure is recorded (issue 3, "The
// limit to state honestly"). Production code has little reason to touch these; finding one in added
// non-test code makes the attempt visible to the person who decides.
const HARNESS_REFERENCES: readonly { name: string; pattern: RegExp }[] = [
  { name: "_pytest", pattern: /\b_pytest\b/ },
  { name: "a pytest hook", pattern: /\bpytest_(?:plugins|runtest_\w+|collection\w*|session\w+|configure|unconfigure|terminal_summary|report_\w+|make\w+)\b/ },
  { name: "sys.modules", pattern: /\bsys\s*\.\s*modules\b/ },
  // Any `_exit`: os._exit, an aliased module (`import os as o; o._exit`), `from os import _exit`, getattr.
  { name: "_exit", pattern: /\b_exit\b/ },
  { name: "atexit", pattern: /\batexit\b/ },
  { name: "process.exit", pattern: /\bprocess\s*(?:\.\s*(?:exit|reallyExit|exitCode)\b|\[\s*["'`](?:exit|reallyExit|exitCode)["'`])/ },
  { name: "require.cache", pattern: /\brequire\s*\.\s*cache\b/ },
  { name: "RANEX_JUNIT", pattern: /RANEX_JUNIT/ },
  { name: "junitxml", pattern: /junit[_-]?xml/i },
  // A write whose destination is a `.xml` path: the report is the one thing the runner produces.
  { name: "a write to an .xml report", pattern: /(?:\b(?:open|write\w*|createWriteStream|appendFile\w*|copyFile\w*|rename\w*)\s*\([^)]*\.xml\b|>>?\s*["'`]?[^\s"'`]*\.xml\b)/i },
];

/** Enough of the line to recognise it, never the whole thing (lines can be huge or hold secrets). */
const EXCERPT_CHARS = 60;
/** Findings kept per file; the rest are counted so a flood of one pattern cannot bury the others. */
const PER_FILE = 10;

function excerpt(text: string, index: number, length: number): string {
  const start = Math.max(0, index - Math.floor((EXCERPT_CHARS - length) / 2));
  const cut = text.slice(start, start + Math.max(EXCERPT_CHARS, length)).trim();
  return shown(`${start > 0 ? "…" : ""}${cut}${start + EXCERPT_CHARS < text.length ? "…" : ""}`);
}

/** Added lines of non-test files that reference the test harness, the report or the exit path. */
export function harnessReferences(added: readonly AddedLines[], isTestFile: PathMatcher): Detail[] {
  const details: Detail[] = [];
  for (const file of added) {
    if (isTestFile(file.path)) continue;
    let kept = 0;
    let dropped = 0;
    for (const { line, text } of file.lines) {
      for (const { name, pattern } of HARNESS_REFERENCES) {
        const match = pattern.exec(text);
        if (match === null) continue;
        if (kept >= PER_FILE) { dropped++; continue; }
        kept++;
        details.push({
          path: file.path, line, kind: "harness-reference",
          message: `${shown(file.path)}:${line}: references ${name}: ${excerpt(text, match.index, match[0].length)}`,
        });
      }
    }
    if (dropped > 0) {
      details.push({ path: file.path, kind: "harness-reference", message: `${shown(file.path)}: ${dropped} more harness references not listed` });
    }
  }
  return details;
}
