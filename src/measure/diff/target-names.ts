// Names of the tests a change is judged by, as code could spell them: the task's target ids and the
// tests the PR's new test files define. Code under test has no reason to know which test is running
// it; code that names one can answer that test differently (issue 11).
import type { AddedLines } from "../../workspace/types.js";

export interface TargetName {
  /** What the finding shows: the id or the name as written. */
  name: string;
  pattern: RegExp;
}

/** More would make the scan slow without making it safer: a change with that many is read anyway. */
const MAX_NAMES = 500;
/** Free-form titles shorter than this are ordinary words ("adds"); only longer ones are distinctive. */
const MIN_TITLE = 10;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A word that only a test would be called: `test_add`, `TestCalc`, `testAdds`, `add_test`. */
function isTestIdentifier(name: string): boolean {
  return /^[A-Za-z_$][\w$]*$/.test(name) && /test/i.test(name) && name.length >= 5 && !/^_*tests?_*$/i.test(name);
}

function nameOf(name: string): TargetName | null {
  const trimmed = name.trim();
  if (isTestIdentifier(trimmed)) return { name: trimmed, pattern: new RegExp(`(?<![\\w$])${escapeRegExp(trimmed)}(?![\\w$])`) };
  if (trimmed.length < MIN_TITLE) return null;
  // A title is distinctive only as a whole string literal: `"adds two numbers"` in the code under test.
  return { name: trimmed, pattern: new RegExp(`(["'\`])${escapeRegExp(trimmed)}\\1`) };
}

/** `tests/test_calc.py::TestX::test_add[1-2]` -> the id itself, `test_add`, `TestX`. */
function namesOfId(id: string): TargetName[] {
  const found: TargetName[] = [];
  // The full id: nobody writes it by accident.
  if (id.includes("::") && id.length >= 8) found.push({ name: id, pattern: new RegExp(escapeRegExp(id)) });
  const segments = id.split("::").slice(1).map((s) => s.replace(/\[.*\]$/s, ""));
  for (const segment of segments) {
    const name = nameOf(segment);
    if (name !== null) found.push(name);
  }
  return found;
}

const PY_DEFINITION = /^\s*(?:async\s+)?def\s+(test\w*)|^\s*class\s+(Test\w*)/;
const JS_DEFINITION = /\b(?:test|it|describe)(?:\s*\.\s*(?:only|skip|todo|concurrent|sequential|fails))*\s*\(\s*(["'`])((?:(?!\1)[^\\]|\\.)+)\1/g;

/** The test functions and titles the added lines of the PR's new test files define. */
function namesDefinedIn(file: AddedLines): TargetName[] {
  const found: TargetName[] = [];
  for (const { text } of file.lines) {
    const py = PY_DEFINITION.exec(text);
    const identifier = py?.[1] ?? py?.[2];
    if (identifier !== undefined) {
      const name = nameOf(identifier);
      if (name !== null) found.push(name);
    }
    for (const match of text.matchAll(JS_DEFINITION)) {
      const name = nameOf(match[2] ?? "");
      if (name !== null) found.push(name);
    }
  }
  return found;
}

/** Every distinctive name of the task's targets and of the tests the PR's new test files define. */
export function targetNames(taskTargets: readonly string[], newTestFiles: readonly AddedLines[]): TargetName[] {
  const byName = new Map<string, TargetName>();
  const all = [...taskTargets.flatMap(namesOfId), ...newTestFiles.flatMap(namesDefinedIn)];
  for (const name of all) {
    if (byName.size >= MAX_NAMES) break;
    if (!byName.has(name.name)) byName.set(name.name, name);
  }
  return [...byName.values()];
}
