// Test helpers the frozen tests import are frozen by default (issue 19). A module outside the test
// globs that the owner's frozen tests import to decide their outcome (`shapes/testing.py` with
// `assert_close`, `support/near.js` with `near`) is part of the target: loosening it turns a red
// target green without touching a single test file. Which modules the frozen tests import is read
// from the base run's provenance record (src/measure/provenance: the Python audit hook's `import`
// events, the Node preload's `require` resolutions, each with the tree file that asked) and from the
// frozen files' own import statements (./test-imports.ts); whether a
// module asserts is read from its text on the base (below), because the code under test is imported
// by the same tests and must stay free to change. Pure: the caller reads the record and the texts.

import type { ProvenanceRecord } from "../provenance/record.js";
import type { FileImports } from "./test-imports.js";

/**
 * A base file frozen because of what the frozen tests use: a module they (or their helpers) import
 * that asserts; with `kind`, test data they read or harness their configuration names (issues 19, 22).
 */
export interface FrozenHelper {
  /** Repository path on the base. */
  path: string;
  /** The frozen files (tests, conftest, helpers, configurations) that import, read or name it, sorted. */
  importedBy: string[];
  /**
   * A helper: where it asserts (`line 6: assert abs(actual - expected) <= tol, …`). Data: how it was
   * seen (`opened in the base run`). Harness: the key that names it.
   */
  asserts: string;
  /** Absent for a helper; `data` for test data the frozen tests read; `harness` for a file a frozen configuration names. */
  kind?: "data" | "harness";
}

export interface HelperBase {
  /** Every path on the base. */
  paths: ReadonlySet<string>;
  /** Is the path frozen already (a test file, harness, a frozen glob)? Frozen importers count. */
  isFrozen(path: string): boolean;
}

/**
 * Modules of the base, outside the frozen set, that a frozen file imports: path -> its frozen
 * importers. Two sources, joined: the record's imports whose importer is frozen (Python a module's
 * dotted name, Node the resolved file), and the frozen files' own import statements (`parsed`,
 * ./test-imports.ts), which name a helper whoever loaded it first and whatever loader ran it (ES
 * modules, jest's and vitest's own). A Python name is resolved with the record's module table (the
 * name each tree module was loaded as); a name it lacks falls back to the code files that ran
 * (`shapes.testing` is `src/shapes/testing.py` under PYTHONPATH=src).
 */
export function importedByFrozen(
  record: ProvenanceRecord, base: HelperBase, parsed: ReadonlyMap<string, FileImports> = new Map(),
): Map<string, string[]> {
  const resolve = nameResolver(record, base.paths);
  const found = new Map<string, Set<string>>();
  const add = (path: string, by: string): void => {
    if (path === by || !base.paths.has(path) || base.isFrozen(path)) return;
    const importers = found.get(path) ?? new Set<string>();
    importers.add(by);
    found.set(path, importers);
  };
  for (const { name, by } of record.imports) {
    if (!base.paths.has(by) || !base.isFrozen(by)) continue;
    for (const path of resolve(name)) add(path, by);
  }
  for (const [by, imports] of parsed) {
    if (!base.paths.has(by) || !base.isFrozen(by)) continue;
    for (const name of imports.names) for (const path of resolve(name)) add(path, by);
    for (const path of imports.paths) add(path, by);
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, by]) => [path, [...by].sort()]));
}

function nameResolver(record: ProvenanceRecord, paths: ReadonlySet<string>): (name: string) => string[] {
  const table = new Map<string, string[]>();
  // Records cached before the module table have none.
  for (const { name, path } of record.modules ?? []) table.set(name, [...table.get(name) ?? [], path]);
  const ran = record.code.map((c) => c.path).filter((p) => paths.has(p));
  // A name the table lacks (a process whose lines ran out before its exit) falls back to the code files that ran.
  return (name) => (paths.has(name) ? [name] : table.get(name) ?? modulePaths(name, ran, paths));
}

function modulePaths(name: string, ran: readonly string[], paths: ReadonlySet<string>): string[] {
  if (paths.has(name)) return [name];
  if (!/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/.test(name)) return [];
  const stem = name.replace(/\./g, "/");
  const endings = [`${stem}.py`, `${stem}/__init__.py`];
  return ran.filter((p) => endings.some((e) => p === e || p.endsWith(`/${e}`)));
}

// What "asserts" means, per language: the module decides a test's outcome through an assertion
// (an `assert` statement, an assertion library, `AssertionError`, `expect`), not merely by raising.
// A plain `raise`/`throw` does not count: the code under test raises the same way, and freezing it
// would block the very fix the tests ask for.
const PYTHON_ASSERTS: readonly RegExp[] = [
  /^\s*assert\b/,
  /\bAssertionError\b/,
  /^\s*(?:import|from)\s+(?:unittest|pytest|numpy\.testing|hypothesis)\b/,
  /\bpytest\.(?:fail|approx|raises)\b/,
  /(?<!def\s+)\bassert\w*\s*\(/,
  // A facade that hands the tests an assertion it imports (`from ._private import assert_close`).
  /^\s*from\s+\S+\s+import\s+.*\bassert_\w+/,
];
const SCRIPT_ASSERTS: readonly RegExp[] = [
  /\bassert(?:\.\w+)?\s*\(/,
  /\bexpect\s*\(/,
  /\brequire\s*\(\s*["'](?:node:)?assert(?:\/strict)?["']\s*\)/,
  /\bfrom\s+["'](?:node:)?assert(?:\/strict)?["']/,
  /\b(?:require\s*\(|from)\s*["'](?:chai|vitest|@jest\/globals|expect|power-assert|uvu\/assert)["']/,
  /\bAssertionError\b/,
];

const PYTHON = /\.pyi?$/;
const SCRIPT = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/**
 * A Python module or function named as a test's check: `testing.py`, `test_utils.py`, `helpers/`,
 * `support/`, `conftest.py`; `def assert_close`, `check_…`, `expect_…`, `verify_…`, `…_equal`.
 */
const CHECK_MODULE = /(?:^|\/)(?:[\w-]*test[\w-]*|helpers?|support|fixtures?|conftest|_?compare)(?:\/|\.pyi?$)/i;
const CHECK_FUNCTION = /^_*(?:assert|check|expect|verify|ensure|must|should|compare)|(?:equal|close|same|match|near)s?$/i;

/**
 * Whether a Python `assert` statement (or `AssertionError`) on line `at` is a check made for the tests:
 * in a module named as a test helper, or in a function named as a check. One elsewhere is the
 * library's own invariant (`assert self.serialization_type is float` and, in `make_error`, `raise
 * AssertionError(message)` in marshmallow's fields.py; `assert spec_version is not None` in
 * pypa/packaging's specifiers.py): it is the code under test, which the honest fix changes, and
 * counting it froze that code (every honest fix FAILed unsafe).
 */
function checkAssert(path: string, lines: readonly string[], at: number): boolean {
  if (CHECK_MODULE.test(path)) return true;
  const indent = /^\s*/.exec(lines[at] ?? "")?.[0].length ?? 0;
  for (let i = at - 1; i >= 0; i--) {
    const def = /^(\s*)(?:async\s+)?def\s+(\w+)/.exec(lines[i] ?? "");
    if (def === null || (def[1] ?? "").length >= indent) continue;
    return CHECK_FUNCTION.test(def[2] ?? "");
  }
  return false;
}

/** Where a module asserts (`line N: text`), or null when it does not (or its language is not read). */
export function assertionIn(path: string, text: string): string | null {
  const patterns = PYTHON.test(path) ? PYTHON_ASSERTS : SCRIPT.test(path) ? SCRIPT_ASSERTS : null;
  if (patterns === null) return null;
  const comment = PYTHON.test(path) ? /^\s*#/ : /^\s*(?:\/\/|\/?\*)/;
  const lines = text.split("\n");
  // The patterns in order, the most telling first: an assert statement says more than an import.
  for (const pattern of patterns) {
    // An assert statement or AssertionError of the library's own (an invariant, a programmer's error)
    // counts only where a check for the tests is made (checkAssert).
    const statement = pattern === PYTHON_ASSERTS[0] || pattern === PYTHON_ASSERTS[1];
    const at = lines.findIndex((line, i) => !comment.test(line) && pattern.test(line) && (!statement || checkAssert(path, lines, i)));
    if (at < 0) continue;
    const shown = lines[at]!.trim();
    return `line ${at + 1}: ${shown.length > 60 ? `${shown.slice(0, 59)}…` : shown}`;
  }
  return null;
}

/**
 * The frozen helpers: imported by frozen files, and asserting on the base. `asserts` holds where each
 * module read asserts (assertionIn), null where it does not; a module not read is no helper.
 */
export function frozenHelpers(imported: ReadonlyMap<string, readonly string[]>, asserts: ReadonlyMap<string, string | null>): FrozenHelper[] {
  const helpers: FrozenHelper[] = [];
  for (const [path, importedBy] of imported) {
    const where = asserts.get(path) ?? null;
    if (where !== null) helpers.push({ path, importedBy: [...importedBy], asserts: where });
  }
  return helpers;
}

/** Why a helper (or test data, or named harness) is frozen, in the words a finding uses. */
export function helperWhy(helper: FrozenHelper): string {
  const by = helper.importedBy.length <= 2 ? helper.importedBy.join(" and ") : `${helper.importedBy[0]} and ${helper.importedBy.length - 1} more frozen files`;
  const one = helper.importedBy.length === 1;
  const release = `release it with unfreeze: ['${helper.path}']`;
  if (helper.kind === "data") return `test data of the frozen tests, frozen as of the base: ${by} ${one ? "reads" : "read"} it (${helper.asserts}); ${release}`;
  if (helper.kind === "harness") return `harness a frozen configuration names, frozen by default: ${by}; ${release}`;
  return `a test helper, frozen by default: ${by} ${one ? "imports" : "import"} it and it asserts (${helper.asserts}); release it with tests.helpers.release`;
}
