// The test helpers of a base (issue 19): read from a recorded run of it (a judgment's base run, or
// `ranex init`'s try) and from the frozen files' own import statements, with the texts of the
// modules they import read from git to see whether they assert. The judging itself is pure
// (src/measure/diff/frozen-helpers.ts, test-imports.ts).
import type { Repository } from "../workspace/index.js";
import type { ProvenanceRecord } from "../measure/provenance/record.js";
import { assertionIn, frozenHelpers, importedByFrozen, type FrozenHelper } from "../measure/diff/frozen-helpers.js";
import { importsOf, readsImports, type FileImports } from "../measure/diff/test-imports.js";

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
}

/** Reads `paths` of `commit` a chunk at a time, handing each text to `take`. */
async function eachText(repo: Repository, commit: string, paths: readonly string[], take: (path: string, text: string) => void): Promise<void> {
  for (let at = 0; at < paths.length; at += CHUNK) {
    for (const [path, blob] of await repo.readBlobs(commit, paths.slice(at, at + CHUNK), MAX_FILE_BYTES)) take(path, blob.toString("utf8"));
  }
}

/** Reads the modules not read yet and notes where each asserts. */
async function readAsserts(repo: Repository, commit: string, paths: Iterable<string>, asserts: Map<string, string | null>): Promise<void> {
  const unread = [...new Set(paths)].filter((p) => !asserts.has(p)).sort().slice(0, Math.max(0, MAX_FILES - asserts.size));
  await eachText(repo, commit, unread, (path, text) => asserts.set(path, assertionIn(path, text)));
}

/**
 * The frozen files' own import statements (./test-imports.ts) and the modules they name by path,
 * read from the base: a judgment starts this beside its runs, since it needs no record, so only the
 * modules the record alone names are read after them.
 */
export async function frozenImportsOf(
  repo: Repository, commit: string, basePaths: readonly string[], isFrozen: (path: string) => boolean,
): Promise<FrozenImports> {
  const paths = new Set(basePaths);
  const importers = basePaths.filter((p) => isFrozen(p) && readsImports(p)).sort().slice(0, MAX_FILES);
  const parsed = new Map<string, FileImports>();
  await eachText(repo, commit, importers, (path, text) => parsed.set(path, importsOf(path, text, paths)));
  const asserts = new Map<string, string | null>();
  await readAsserts(repo, commit, [...parsed.values()].flatMap((i) => i.paths).filter((p) => !isFrozen(p)), asserts);
  return { parsed, asserts };
}

export async function testHelpersOf(
  repo: Repository, commit: string, record: ProvenanceRecord, basePaths: readonly string[], isFrozen: (path: string) => boolean,
  frozenImports?: Promise<FrozenImports>,
): Promise<FrozenHelper[]> {
  const { parsed, asserts } = await (frozenImports ?? frozenImportsOf(repo, commit, basePaths, isFrozen));
  const imported = importedByFrozen(record, { paths: new Set(basePaths), isFrozen }, parsed);
  await readAsserts(repo, commit, imported.keys(), asserts);
  return frozenHelpers(imported, asserts);
}
