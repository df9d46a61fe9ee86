// The test helpers of a base (issue 19): read from a recorded run of it (a judgment's base run, or
// `ranex init`'s try) and from the frozen files' own import statements, with the texts of the
// modules they import read from git to see whether they assert. The judging itself is pure
// (src/measure/diff/frozen-helpers.ts, test-imports.ts).
import type { Repository } from "../workspace/index.js";
import type { ProvenanceRecord } from "../measure/provenance/record.js";
import { frozenHelpers, importedByFrozen, type FrozenHelper } from "../measure/diff/frozen-helpers.js";
import { importsOf, readsImports, type FileImports } from "../measure/diff/test-imports.js";

/** A helper bigger than this is not read (a generated module): it is not frozen as a helper. */
const MAX_HELPER_BYTES = 512 * 1024;
/** At most this many imported modules are read per base. */
const MAX_HELPERS = 100;
/** At most this many frozen files' import statements are read per base (docs/measurement.md says so). */
const MAX_IMPORTERS = 2000;

/**
 * The frozen files' own import statements (./test-imports.ts), read from the base: a judgment starts
 * this beside its runs, since it needs no record, so the helpers cost no wall time after them.
 */
export async function frozenImportsOf(
  repo: Repository, commit: string, basePaths: readonly string[], isFrozen: (path: string) => boolean,
): Promise<Map<string, FileImports>> {
  const paths = new Set(basePaths);
  const importers = basePaths.filter((p) => isFrozen(p) && readsImports(p)).sort().slice(0, MAX_IMPORTERS);
  const parsed = new Map<string, FileImports>();
  for (const [path, blob] of await repo.readBlobs(commit, importers, MAX_HELPER_BYTES)) {
    parsed.set(path, importsOf(path, blob.toString("utf8"), paths));
  }
  return parsed;
}

export async function testHelpersOf(
  repo: Repository, commit: string, record: ProvenanceRecord, basePaths: readonly string[], isFrozen: (path: string) => boolean,
  frozenImports?: Promise<ReadonlyMap<string, FileImports>>,
): Promise<FrozenHelper[]> {
  const parsed = await (frozenImports ?? frozenImportsOf(repo, commit, basePaths, isFrozen));
  const imported = importedByFrozen(record, { paths: new Set(basePaths), isFrozen }, parsed);
  const blobs = await repo.readBlobs(commit, [...imported.keys()].slice(0, MAX_HELPERS), MAX_HELPER_BYTES);
  const texts = new Map([...blobs].map(([path, blob]) => [path, blob.toString("utf8")]));
  return frozenHelpers(imported, texts);
}
