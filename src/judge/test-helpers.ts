// The test helpers of a base (issue 19): read from a recorded run of it (a judgment's base run, or
// `ranex init`'s try) and from the frozen files' own import statements, with the texts of the
// modules they import read from git to see whether they assert. The judging itself is pure
// (src/measure/diff/frozen-helpers.ts, test-imports.ts).
import type { Repository } from "../workspace/index.js";
import type { ProvenanceRecord } from "../measure/provenance/record.js";
import { assertionIn, frozenHelpers, importedByFrozen, type FrozenHelper } from "../measure/diff/frozen-helpers.js";
import { importsOf, readsImports, type FileImports } from "../measure/diff/test-imports.js";
import { dataReadByFrozen, literalDataPaths } from "../measure/diff/test-data.js";
import { namedHarness, namesHarness, type NamedHarness } from "../measure/diff/named-harness.js";

/** A file bigger than this is not read (a generated module): it is not frozen as a helper, nor are its imports read. */
const MAX_FILE_BYTES = 512 * 1024;
/**
 * At most this many frozen files' import statements, and as many imported modules, are read per
 * base (docs/measurement.md says so): the imported modules include the code under test the tests
 * import, so a large repository has hundreds.
 */
const MAX_FILES = 2000;
/** Files are read this many at a time, so at most this many texts are held at once. */
const CHUNK = 100;

/** What the frozen files import, as far as their text says, and where each module they name asserts. */
export interface FrozenImports {
  parsed: Map<string, FileImports>;
  /** Module path -> where it asserts (null: it does not), for the modules read so far. */
  asserts: Map<string, string | null>;
  /** Module path -> its own imports, for the modules read so far: a helper's are followed (helpers of helpers). */
  moduleImports: Map<string, FileImports>;
  /** Frozen file or module read -> the data files its text names by a literal path (./test-data.ts). */
  named: Map<string, string[]>;
  /** Files the base's frozen configurations name as harness (jest `setupFiles`, a pytest `-p` plugin, Cargo's `build`). */
  harness: NamedHarness[];
}

/** Reads `paths` of `commit` a chunk at a time, handing each text to `take`. */
async function eachText(repo: Repository, commit: string, paths: readonly string[], take: (path: string, text: string) => void): Promise<void> {
  for (let at = 0; at < paths.length; at += CHUNK) {
    for (const [path, blob] of await repo.readBlobs(commit, paths.slice(at, at + CHUNK), MAX_FILE_BYTES)) take(path, blob.toString("utf8"));
  }
}

/** Reads the modules not read yet: where each asserts, what it imports, which data it names. */
async function readModules(repo: Repository, commit: string, paths: Iterable<string>, read: FrozenImports, all: ReadonlySet<string>): Promise<void> {
  const { asserts } = read;
  const unread = [...new Set(paths)].filter((p) => !asserts.has(p)).sort().slice(0, Math.max(0, MAX_FILES - asserts.size));
  await eachText(repo, commit, unread, (path, text) => {
    asserts.set(path, assertionIn(path, text));
    if (readsImports(path)) read.moduleImports.set(path, importsOf(path, text, all));
    const named = literalDataPaths(path, text, all);
    if (named.length > 0) read.named.set(path, named);
  });
}

/**
 * The frozen files' own import statements (./test-imports.ts), the data they name, the harness the
 * frozen configurations name, and the modules they import by path, read from the base: a judgment
 * starts this beside its runs, since it needs no record, so only the modules the record alone names
 * are read after them.
 */
export async function frozenImportsOf(
  repo: Repository, commit: string, basePaths: readonly string[], isFrozen: (path: string) => boolean,
): Promise<FrozenImports> {
  const paths = new Set(basePaths);
  const importers = basePaths.filter((p) => isFrozen(p) && readsImports(p)).sort().slice(0, MAX_FILES);
  const read: FrozenImports = { parsed: new Map(), asserts: new Map(), moduleImports: new Map(), named: new Map(), harness: [] };
  await eachText(repo, commit, importers, (path, text) => {
    read.parsed.set(path, importsOf(path, text, paths));
    const named = literalDataPaths(path, text, paths);
    if (named.length > 0) read.named.set(path, named);
  });
  const configs = basePaths.filter((p) => isFrozen(p) && namesHarness(p)).sort().slice(0, MAX_FILES);
  await eachText(repo, commit, configs, (path, text) => {
    read.harness.push(...namedHarness(path, text, paths).filter((h) => !isFrozen(h.path)));
  });
  await readModules(repo, commit, [...read.parsed.values()].flatMap((i) => i.paths).filter((p) => !isFrozen(p)), read, paths);
  return read;
}

/** A helper's helpers are followed this many imports deep (a package's testing facade, its private asserts). */
const MAX_DEPTH = 4;

/**
 * The base files frozen by what the frozen tests use (issues 19, 22): their helpers (a module a
 * frozen file imports and that asserts; then, level by level, a module such a helper imports and
 * that asserts too), the data the frozen files and helpers read, and the harness the frozen
 * configurations name. Each level keeps the "asserts" rule, so the code under test that a helper
 * imports (to compute what it expects) stays free to change.
 */
export async function testHelpersOf(
  repo: Repository, commit: string, record: ProvenanceRecord, basePaths: readonly string[], isFrozen: (path: string) => boolean,
  frozenImports?: Promise<FrozenImports>,
): Promise<FrozenHelper[]> {
  const read = await (frozenImports ?? frozenImportsOf(repo, commit, basePaths, isFrozen));
  const paths = new Set(basePaths);
  let helpers: FrozenHelper[] = [];
  for (let depth = 0; depth < MAX_DEPTH; depth += 1) {
    const helperPaths = new Set(helpers.map((h) => h.path));
    const importers = new Map(read.parsed);
    for (const path of helperPaths) importers.set(path, read.moduleImports.get(path) ?? { names: [], paths: [] });
    const imported = importedByFrozen(record, { paths, isFrozen: (p) => isFrozen(p) || helperPaths.has(p) }, importers);
    await readModules(repo, commit, imported.keys(), read, paths);
    const found = frozenHelpers(imported, read.asserts);
    if (found.length === 0) break;
    helpers = [...helpers, ...found].sort((a, b) => (a.path < b.path ? -1 : 1));
  }
  const helperPaths = new Set(helpers.map((h) => h.path));
  const frozenOrHelper = (p: string): boolean => isFrozen(p) || helperPaths.has(p);
  const named = new Map([...read.named].filter(([by]) => frozenOrHelper(by)));
  const data: FrozenHelper[] = dataReadByFrozen(record, { paths, isFrozen: frozenOrHelper }, named).map((d) => ({
    path: d.path, importedBy: d.by, kind: "data",
    asserts: d.seen.map((how) => (how === "run" ? "opened in the base run" : "named in its text")).join(", "),
  }));
  const harness = new Map<string, FrozenHelper>();
  for (const h of read.harness) {
    if (helperPaths.has(h.path)) continue;
    const known = harness.get(h.path);
    if (known === undefined) harness.set(h.path, { path: h.path, importedBy: [h.by], asserts: "", kind: "harness" });
    else known.importedBy = [...new Set([...known.importedBy, h.by])].sort();
  }
  return [...helpers, ...data.filter((d) => !harness.has(d.path)), ...harness.values()];
}
