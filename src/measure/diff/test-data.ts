// Test data the frozen tests read, frozen as of the base (issue 19). Go's `testdata` and jest's
// snapshots are frozen by name (./frozen-defaults.ts); data at any other path (`tests.files` aside)
// is found two ways, joined: the base run's record (./../provenance: each tree file that is not code
// opened for reading, with the tree file whose code opened it) and the frozen files' own text, where
// a path is written literally (`open("data/x.json")`, `Path(__file__).parent / "data" / "x.json"`,
// `path.join(__dirname, 'fixtures', 'a.json')`). Only data a frozen file reads counts: what the code
// under test reads for itself (its tables, its templates) stays the code's to change. Pure.

import { posix } from "node:path";
import type { ProvenanceRecord } from "../provenance/record.js";
import type { HelperBase } from "./frozen-helpers.js";

/** At most this many data files per base, the first by path (docs/measurement.md says so). */
export const MAX_DATA_FILES = 2000;

/** A base file frozen because a frozen file reads it. */
export interface DataRead {
  path: string;
  /** The frozen files that read it, sorted. */
  by: string[];
  /** How it was seen: opened in the base run, named in a frozen file's text, or both. */
  seen: ("run" | "text")[];
}

// Code is not data: a module a frozen file loads is a helper or the code under test (./frozen-helpers.ts).
const CODE = /\.(?:pyi?|pyc|pyo|so|pyd|[cm]?[jt]sx?|node|map)$/;
const CACHE = /(?:^|\/)(?:__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|node_modules|\.git)\//;

// A runner's or bundler's configuration is frozen but is no test: the files it names or reads
// (`index.html` for vite, `tsconfig.json`) are the application's, and its harness is read apart
// (./named-harness.ts). Only the tests, conftest and helpers count as readers of test data.
const CONFIGURATION = /(?:^|\/)(?:[^/]*\.(?:config|conf)\.[cm]?[jt]s|\.[^/]*rc(?:\.[cm]?js)?|noxfile\.py|setup\.py|sitecustomize\.py|usercustomize\.py)$/;

/** Do this frozen file's reads, and the paths its text names, count as test data? */
export function readsData(path: string): boolean {
  return !CONFIGURATION.test(path);
}

/** Is the path a data file the freezing may consider (not code, not a cache)? */
export function isDataPath(path: string): boolean {
  return !CODE.test(path) && !CACHE.test(path);
}

// A string literal on one line: "…", '…', or a template literal with no substitution.
const STRING = String.raw`(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|` + "`[^`$\\n]*`)";
// Literals joined by pathlib's `/`, a join's `,` or a `+`: `"data" / "x.json"`, `'fixtures', 'a.json'`.
const JOINED = new RegExp(`${STRING}(?:\\s*[/,+]\\s*${STRING})*`, "g");

/** The strings a text joins into paths: each literal alone, and each run of joined literals. */
function pathStrings(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(JOINED)) {
    const parts = [...match[0].matchAll(new RegExp(STRING, "g"))].map((m) => m[0].slice(1, -1));
    for (const part of parts) found.add(part);
    if (parts.length > 1) found.add(parts.join("/"));
  }
  return [...found].filter((s) => s.length > 0 && s.length < 300 && !/[\s*?{}<>|]/.test(s));
}

/**
 * Base files a frozen file names by a literal path: resolved against its own folder and the folders
 * above it (`Path(__file__).parent.parent`, `__dirname + '/../data'`) and the repository's root (a
 * test run from there). Only data files the base has.
 */
export function literalDataPaths(from: string, text: string, paths: ReadonlySet<string>): string[] {
  const dirs: string[] = [];
  for (let dir = posix.dirname(from); ; dir = posix.dirname(dir)) {
    dirs.push(dir);
    if (dir === "." || dir === "/" || dirs.length > 6) break;
  }
  const found = new Set<string>();
  for (const s of pathStrings(text)) {
    const relative = s.replace(/^\/+/, "");
    for (const dir of dirs) {
      const candidate = posix.normalize(dir === "." ? relative : `${dir}/${relative}`);
      if (candidate !== from && paths.has(candidate) && isDataPath(candidate)) found.add(candidate);
    }
  }
  return [...found].sort();
}

/**
 * The base's data files the frozen files read: from the record (opened for reading by code of a
 * frozen file, never written by the run) and from the frozen files' literal paths (`named`: frozen
 * file -> the paths its text names). Files already frozen are left out; the first MAX_DATA_FILES by path.
 */
export function dataReadByFrozen(record: ProvenanceRecord, base: HelperBase, named: ReadonlyMap<string, readonly string[]>): DataRead[] {
  const written = new Set(record.written ?? []);
  const found = new Map<string, { by: Set<string>; seen: Set<"run" | "text"> }>();
  const add = (path: string, by: string, how: "run" | "text"): void => {
    if (!base.paths.has(path) || base.isFrozen(path) || !isDataPath(path) || written.has(path)) return;
    if (!base.paths.has(by) || !base.isFrozen(by) || !readsData(by)) return;
    const entry = found.get(path) ?? { by: new Set<string>(), seen: new Set<"run" | "text">() };
    entry.by.add(by);
    entry.seen.add(how);
    found.set(path, entry);
  };
  for (const { path, by } of record.data ?? []) add(path, by, "run");
  for (const [by, paths] of named) for (const path of paths) add(path, by, "text");
  return [...found]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .slice(0, MAX_DATA_FILES)
    .map(([path, { by, seen }]) => ({ path, by: [...by].sort(), seen: (["run", "text"] as const).filter((h) => seen.has(h)) }));
}
