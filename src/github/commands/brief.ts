// `/ranex explain`'s reviewer's brief: read from this gate's own journal, rendered by the pure
// template in src/judge/reviewer-brief.ts (which the verdict page shares).
import { briefOfEntry } from "../../judge/reviewer-brief.js";

/**
 * The brief for a `ranex/judge` check run's `external_id`, read from this gate's own journal (never
 * from the check run's text). A journal that cannot be read is said, not hidden.
 */
export async function briefForCheckRun(findEntry: ((id: string) => Promise<unknown>) | undefined, externalId: string | null | undefined): Promise<string | null> {
  if (findEntry === undefined || externalId === null || externalId === undefined || externalId === "") return null;
  try {
    const entry = await findEntry(externalId);
    return entry === null ? `_The reviewer's brief is missing: journal entry \`${externalId}\` is not in this gate's journal._` : briefOfEntry(entry);
  } catch (err) {
    return `_The reviewer's brief could not be read from the journal: ${(err as Error).message.split("\n")[0]}_`;
  }
}
