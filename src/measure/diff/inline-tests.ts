// Tests that live inside source files (issue 22): Rust keeps its unit tests in `#[cfg(test)]`
// modules of `src/*.rs`, which the `tests.files` globs (`tests/**`) never freeze. Found on
// rust-lang/glob: asserts dropped from a `#[test]` fn in `src/lib.rs` were judged CANDIDATE. The
// base's inline tests are located by a small scanner (braces matched, strings, raw strings, char
// literals and comments skipped) and the change's hunks mapped onto them: a base line of a test fn
// or of a test module modified or deleted is a frozen-test edit; lines added inside a test module,
// between its items, are new tests and stay allowed. Pure: the caller reads the blobs and hunks.
// Another language with inline tests joins by adding a scanner to SCANNERS.
import { plural } from "./context.js";
import { shadowed, shadowing } from "./inline-shadowing.js";

/** One test item of the base: a test fn or a test module, its lines 1-based and inclusive. */
export interface InlineTestRange {
  kind: "fn" | "module";
  /** The module path inside the file and the item's name: `tests::adds`. */
  name: string;
  /** The first line of the item, its attributes included. */
  start: number;
  /** The line of the body's opening brace: lines before it are the item's signature. */
  open: number;
  /** The line of the closing brace. */
  end: number;
}

/** One hunk of a -U0 diff of the file: `oldCount` base lines from `oldStart` replaced by `added`. */
export interface LineHunk {
  /** For a pure insertion (`oldCount` 0): the base line the lines are inserted after. */
  oldStart: number;
  oldCount: number;
  added: readonly string[];
}

/** A change to a test of the base: what diff.frozen reports. */
export interface InlineTestEdit {
  path: string;
  test: string;
  kind: "fn" | "module";
  what: string;
}

// Attributes that make a fn a test, by the last segment of their path: `#[test]`, `#[tokio::test]`,
// `#[async_std::test]`, `#[rstest]`, `#[test_case(..)]`, `#[wasm_bindgen_test]`.
const TEST_ATTRIBUTES = new Set(["test", "rstest", "test_case", "wasm_bindgen_test"]);

const SCANNERS: readonly { suffix: RegExp; scan: (text: string) => InlineTestRange[] }[] = [
  { suffix: /\.rs$/, scan: rustTestRanges },
];

/** Whether a path's language keeps tests inside source files that this module can find. */
export function hasInlineTests(path: string): boolean {
  return SCANNERS.some((s) => s.suffix.test(path));
}

/** The test items of a source file on the base; empty for a language without a scanner. */
export function inlineTestRanges(path: string, text: string): InlineTestRange[] {
  return SCANNERS.find((s) => s.suffix.test(path))?.scan(text) ?? [];
}

interface Frame {
  kind: "fn" | "module" | "block";
  name: string;
  start: number;
  open: number;
  test: boolean;
}

interface Pending {
  attributes: string[];
  start: number | null;
  item: "fn" | "module" | null;
  name: string | null;
}

/** The test fns and `#[cfg(test)]` modules of a Rust source file, outermost first by start line. */
export function rustTestRanges(text: string): InlineTestRange[] {
  const ranges: InlineTestRange[] = [];
  const stack: Frame[] = [];
  let pending: Pending = fresh();
  let line = 1;
  let parens = 0;
  let i = 0;
  const inTestModule = (): boolean => stack.some((f) => f.kind === "module" && f.test);
  const path = (name: string): string => [...stack.filter((f) => f.kind === "module").map((f) => f.name), name].join("::");
  const countLines = (from: number, to: number): void => {
    for (let k = from; k < to; k += 1) if (text[k] === "\n") line += 1;
  };
  const skipTo = (next: number): void => { countLines(i, next); i = next; };

  while (i < text.length) {
    const c = text[i] ?? "";
    if (c === "\n") { line += 1; i += 1; continue; }
    if (text.startsWith("//", i)) { const nl = text.indexOf("\n", i); skipTo(nl === -1 ? text.length : nl); continue; }
    if (text.startsWith("/*", i)) { skipTo(blockCommentEnd(text, i)); continue; }
    const raw = rawStringEnd(text, i);
    if (raw !== null) { skipTo(raw); continue; }
    if (c === '"') { skipTo(stringEnd(text, i + 1, '"')); continue; }
    if (c === "'") { skipTo(charEnd(text, i)); continue; }
    if (c === "#" && (text.startsWith("#[", i) || text.startsWith("#![", i))) {
      const inner = text[i + 1] === "!";
      const open = text.indexOf("[", i);
      const close = bracketEnd(text, open);
      const body = text.slice(open + 1, close - 1);
      if (inner) {
        if (isCfgTest(body)) markInnerTest(stack, ranges, line, text);
      } else {
        pending.attributes.push(body);
        pending.start ??= line;
      }
      skipTo(close);
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 256))?.[0] ?? c;
      pending.start ??= line;
      if (pending.item !== null && pending.name === null && parens === 0) pending.name = word;
      else if ((word === "fn" || word === "mod") && pending.item === null) pending.item = word === "fn" ? "fn" : "module";
      i += word.length;
      continue;
    }
    if (c === "(") parens += 1;
    else if (c === ")") parens = Math.max(0, parens - 1);
    else if (c === "{") {
      const frame = framed(pending, line, inTestModule());
      stack.push(frame);
      pending = fresh();
    } else if (c === "}") {
      const frame = stack.pop();
      if (frame?.test === true && frame.kind !== "block") {
        ranges.push({ kind: frame.kind, name: path(frame.name), start: frame.start, open: frame.open, end: line });
      }
      pending = fresh();
      parens = 0;
    } else if (c === ";" && parens === 0) {
      pending = fresh();
    } else if (!/\s/.test(c)) {
      pending.start ??= line;
    }
    i += 1;
  }
  return ranges.sort((a, b) => a.start - b.start || b.end - a.end);
}

function fresh(): Pending {
  return { attributes: [], start: null, item: null, name: null };
}

/** The frame a `{` opens: the body of the pending fn or module, or any other block. */
function framed(pending: Pending, line: number, inTestModule: boolean): Frame {
  const start = pending.start ?? line;
  if (pending.item === "module" && pending.name !== null) {
    return { kind: "module", name: pending.name, start, open: line, test: inTestModule || pending.attributes.some(isCfgTest) };
  }
  if (pending.item === "fn" && pending.name !== null) {
    // A fn whose attributes make it a test; inside a test module every fn is test code (helpers).
    const test = pending.attributes.some(isTestAttribute);
    return { kind: "fn", name: pending.name, start, open: line, test: test || inTestModule };
  }
  return { kind: "block", name: "", start, open: line, test: false };
}

/** `#![cfg(test)]` inside a module's body: the module is a test module from its start. */
function markInnerTest(stack: Frame[], ranges: InlineTestRange[], line: number, text: string): void {
  const frame = stack.at(-1);
  if (frame !== undefined) { if (frame.kind === "module") frame.test = true; return; }
  // At the top of the file: the whole file is test code.
  const lines = text.split("\n").length;
  ranges.push({ kind: "module", name: "(file)", start: 1, open: Math.min(line, lines), end: lines });
}

function attributePath(body: string): string {
  return /^\s*([A-Za-z_][\w:\s]*)/.exec(body)?.[1]?.replace(/\s+/g, "") ?? "";
}

function isTestAttribute(body: string): boolean {
  return TEST_ATTRIBUTES.has(attributePath(body).split("::").at(-1) ?? "");
}

/** `cfg(test)`, and `cfg(all(test, ...))`-like forms: `test` as a bare predicate, strings removed. */
export function isCfgTest(body: string): boolean {
  if (attributePath(body) !== "cfg") return false;
  // `feature = "test"` names a feature, not the test predicate: string values are dropped first.
  return /\btest\b/.test(body.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/^\s*cfg/, ""));
}

function blockCommentEnd(text: string, from: number): number {
  // Rust block comments nest.
  let depth = 0;
  let i = from;
  while (i < text.length) {
    if (text.startsWith("/*", i)) { depth += 1; i += 2; continue; }
    if (text.startsWith("*/", i)) { depth -= 1; i += 2; if (depth === 0) return i; continue; }
    i += 1;
  }
  return text.length;
}

/** The end of `r"..."`, `r#"..."#`, `br##"..."##`, `cr"..."` starting at `from`; null when none starts there. */
function rawStringEnd(text: string, from: number): number | null {
  const m = /^(?:b|c)?r(#*)"/.exec(text.slice(from, from + 300));
  if (m === null || /[A-Za-z0-9_]/.test(text[from - 1] ?? "")) return null;
  const closing = `"${m[1] ?? ""}`;
  const end = text.indexOf(closing, from + m[0].length);
  return end === -1 ? text.length : end + closing.length;
}

/** The index after the closing quote of a string or char literal whose body starts at `from`. */
function stringEnd(text: string, from: number, quote: string): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\") { i += 2; continue; }
    if (c === quote) return i + 1;
    i += 1;
  }
  return text.length;
}

/** A char literal (`'{'`, `'\''`, `'\u{7b}'`) is skipped whole; a lifetime (`'a`) only its quote. */
function charEnd(text: string, from: number): number {
  if (text[from + 1] === "\\") return stringEnd(text, from + 1, "'");
  const code = text.codePointAt(from + 1);
  if (code === undefined) return from + 1;
  const width = code > 0xffff ? 2 : 1;
  return text[from + 1 + width] === "'" ? from + 2 + width : from + 1;
}

/** The index after the `]` that closes the `[` at `open`, strings inside skipped. */
function bracketEnd(text: string, open: number): number {
  let depth = 0;
  let i = open;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') { i = stringEnd(text, i + 1, '"'); continue; }
    if (c === "[") depth += 1;
    else if (c === "]") { depth -= 1; if (depth === 0) return i + 1; }
    i += 1;
  }
  return text.length;
}

/** Does text inserted before an item end in an attribute, which then binds to that item? */
export function endsWithAttribute(lines: readonly string[]): boolean {
  const code = lines.map((l) => l.replace(/\/\/.*$/, "")).join("\n").trimEnd();
  return code.endsWith("]") && /#!?\[/.test(code);
}

/**
 * The edits a change makes to the base's test items, from its -U0 hunks. Each changed base line and
 * each insertion point is blamed on the innermost test item holding it: modified or deleted lines of
 * a test fn or test module; lines inserted inside a test fn or into a test module's signature; an
 * attribute inserted right above a test item.
 */
export function inlineTestEdits(
  path: string, ranges: readonly InlineTestRange[], hunks: readonly LineHunk[], baseText = "",
): InlineTestEdit[] {
  const baseLines = baseText.split("\n");
  const lines = new Map<InlineTestRange, number[]>();
  const inserted = new Map<InlineTestRange, string>();
  const innermost = (hit: (r: InlineTestRange) => boolean): InlineTestRange | undefined =>
    ranges.filter(hit).sort((a, b) => (a.end - a.start) - (b.end - b.start))[0];
  for (const hunk of hunks) {
    if (hunk.oldCount > 0) {
      for (let n = hunk.oldStart; n < hunk.oldStart + hunk.oldCount; n += 1) {
        const range = innermost((r) => r.start <= n && n <= r.end);
        if (range !== undefined) lines.set(range, [...(lines.get(range) ?? []), n]);
      }
      continue;
    }
    const after = hunk.oldStart;
    const inside = innermost((r) => r.start <= after && after < (r.kind === "fn" ? r.end : r.open));
    const above = endsWithAttribute(hunk.added) ? innermost((r) => r.start === after + 1) : undefined;
    const range = inside ?? above ?? shadowing(ranges, after, hunk.added, baseLines);
    if (range === undefined) continue;
    if (range !== inside && range !== above) {
      inserted.set(range, `a new item inserted after line ${after} takes a name its tests already use (${shadowed(range, hunk.added, baseLines).join(", ")}), so they would call it instead`);
      continue;
    }
    inserted.set(range, range === inside
      ? `${plural(hunk.added.length, "line")} inserted ${range.kind === "fn" ? "into it" : "into its signature"} after line ${after}`
      : `an attribute inserted above it after line ${after}`);
  }
  const edits: InlineTestEdit[] = [];
  for (const range of [...ranges].sort((a, b) => a.start - b.start)) {
    const changed = lines.get(range);
    const added = inserted.get(range);
    if (changed === undefined && added === undefined) continue;
    const parts = [changed === undefined ? null : `base ${spans(changed)} modified or deleted`, added ?? null].filter((p) => p !== null);
    const what = `${range.kind === "fn" ? "test fn" : "test module"} ${range.name} (lines ${range.start}-${range.end} on base) changed: ${parts.join("; ")}`;
    edits.push({ path, test: range.name, kind: range.kind, what });
  }
  return edits;
}

/** "line 4", "lines 4-6, 9". */
function spans(numbers: readonly number[]): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let k = 0; k < sorted.length; k += 1) {
    const first = sorted[k] ?? 0;
    let last = first;
    while (sorted[k + 1] === last + 1) { last += 1; k += 1; }
    parts.push(first === last ? `${first}` : `${first}-${last}`);
  }
  return `${sorted.length === 1 ? "line" : "lines"} ${parts.join(", ")}`;
}
