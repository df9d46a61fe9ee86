import picomatch from "picomatch";
import type { Policy, Task } from "../../policy/schema.js";
import type { AddedLines, DiffFact } from "../../workspace/types.js";
import type { SubmoduleChanges } from "../../workspace/submodule-diff.js";
import type { FrozenHelper } from "./frozen-helpers.js";
import type { InlineTestEdit } from "./inline-tests.js";

/** Everything the three diff claims judge: plain data, read from git by src/workspace. */
export interface DiffContext {
  /** The subject digest the evidence is bound to. */
  subject: string;
  facts: readonly DiffFact[];
  /** Every path on the base commit. */
  basePaths: readonly string[];
  policy: Policy;
  task: Task | null;
  /** The lines each file adds (for the harness-reference scan). */
  added: readonly AddedLines[];
  /**
   * Every symlink of the head tree (path -> target), read from git: links are resolved against
   * them link by link. Without it only the change's own links are known.
   */
  headLinks?: ReadonlyMap<string, string>;
  /**
   * New files the test globs match that define no test (read from git): code, not tests, for
   * scope, diff.needed and the harness scan (issue 19).
   */
  testless?: ReadonlySet<string>;
  /** Module names a new top-level module may not take (issue 19): see ./shadow-names.ts. */
  modules?: ModuleNames;
  /**
   * The test helpers the frozen tests import (issue 19, ./frozen-helpers.ts), from the base run's
   * provenance record: frozen unless the policy releases them. Absent when no base run was recorded.
   */
  helpers?: readonly FrozenHelper[];
  /**
   * Edits to tests of the base that live inside source files (Rust `#[test]` fns and `#[cfg(test)]`
   * modules, issue 22), found from the base blobs and the hunks: see ./inline-tests.ts.
   */
  inlineTestEdits?: readonly InlineTestEdit[];
  /**
   * The files inside the submodules whose gitlinks the change moves, adds or removes (issue 22), with
   * their full paths, and the base's files inside submodules: diff.frozen and diff.scope judge them
   * as files of the tree. `problems`: submodules whose files could not be compared (never a pass).
   */
  inside?: SubmoduleChanges;
}

/** Names that resolve to code outside the tree, which a module of the same name would replace. */
export interface ModuleNames {
  /** The standard library's modules (`sys.stdlib_module_names`). */
  pythonStdlib: readonly string[];
  /** Top-level import names of the distributions the sandbox's python sees (not the repository's own). */
  pythonInstalled: readonly string[];
  /** Node's built-in modules (`builtinModules`). */
  nodeBuiltins: readonly string[];
  /** Packages the base declares in package.json or has in node_modules. */
  nodePackages: readonly string[];
  /** Folders pytest's `pythonpath` setting puts on sys.path (the base's pyproject.toml, pytest.ini, ...). */
  pytestPythonPath?: readonly string[];
}

// Characters that could forge or hide output: C0/C1 controls, line and paragraph separators,
// zero-width and bidirectional marks (Trojan Source), the byte-order mark. Matching control
// characters is the point here.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHAR = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
const UNSAFE_CHARS = new RegExp(UNSAFE_CHAR.source, "g");

/** Every unsafe character as a `\uXXXX` escape, nothing else changed (for text already quoted). */
export function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** True when the text holds a character that must not reach a terminal or a log as is. */
export function hasUnsafeChar(text: string): boolean {
  return UNSAFE_CHAR.test(text);
}

/**
 * A path (or any untrusted text) made safe to print: unchanged when harmless, otherwise quoted with
 * every unsafe character escaped, so a newline in a path cannot forge a second line of output.
 */
export function shown(text: string): string {
  if (!UNSAFE_CHAR.test(text) && !/["\\]/.test(text)) return text;
  const escaped = JSON.stringify(text).replace(UNSAFE_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return escaped;
}

export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/** "a (x), b (y), c (z) and 4 more": enough to read in one line, the details carry the rest. */
export function listed(items: readonly string[], max = 5): string {
  const head = items.slice(0, max).join(", ");
  return items.length > max ? `${head} and ${items.length - max} more` : head;
}

export type PathMatcher = (path: string) => boolean;

const MAX_COMPILED = 1000;
const compiled = new Map<string, (path: string) => boolean>();

/**
 * A glob matcher over repository paths (picomatch, dotfiles included). picomatch's `*` never matches
 * a line break, so a path holding one would slip past every glob; such characters are replaced with
 * a harmless one before matching, which keeps frozen and deny globs failing closed.
 */
export function matcher(globs: readonly string[], options: { nocase?: boolean } = {}): PathMatcher {
  if (globs.length === 0) return () => false;
  const nocase = options.nocase ?? false;
  // Compiling a glob costs far more than matching: the default frozen globs are compiled once.
  const key = JSON.stringify([nocase, globs]);
  let test = compiled.get(key);
  if (test === undefined) {
    test = picomatch([...globs], { dot: true, nocase });
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, test);
  }
  const match = test;
  return (path) => match(path.replace(/[\n\r\u2028\u2029]/g, "\u0001"));
}


/** Paths present on head that were not there under that name on base: added, renamed or copied to. */
export function isNewOnHead(fact: DiffFact): boolean {
  return fact.status === "A" || fact.status === "R" || fact.status === "C";
}
