// The test helpers of a base (issue 19): read from a recorded run of it (a judgment's base run, or
// `ranex init`'s try), with the texts of the modules its frozen tests imported read from git to see
// whether they assert. The judging itself is pure (src/measure/diff/frozen-helpers.ts).
import type { Repository } from "../workspace/index.js";
import type { ProvenanceRecord } from "../measure/provenance/record.js";
import { frozenHelpers, importedByFrozen, type FrozenHelper } from "../measure/diff/frozen-helpers.js";

/** A helper bigger than this is not read (a generated module): it is not frozen as a helper. */
const MAX_HELPER_BYTES = 512 * 1024;
/** At most this many imported modules are read per base. */
const MAX_HELPERS = 100;

export async function testHelpersOf(
  repo: Repository, commit: string, record: ProvenanceRecord, basePaths: readonly string[], isFrozen: (path: string) => boolean,
): Promise<FrozenHelper[]> {
  const imported = importedByFrozen(record, { paths: new Set(basePaths), isFrozen });
  const texts = new Map<string, string>();
  for (const path of [...imported.keys()].slice(0, MAX_HELPERS)) {
    const blob = await repo.readBlob(commit, path, MAX_HELPER_BYTES).catch(() => null);
    if (blob !== null) texts.set(path, blob.toString("utf8"));
  }
  return frozenHelpers(imported, texts);
}
