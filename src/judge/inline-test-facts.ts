// The base's tests that live inside source files (issue 22), read in the trusted parent for
// diff.frozen: for each changed file whose language keeps tests inline, the base blob is scanned for
// test items and the change's hunks are mapped onto them (src/measure/diff/inline-tests.ts).
import type { Policy } from "../policy/schema.js";
import type { Repository } from "../workspace/index.js";
import type { DiffFact, Hunk } from "../workspace/types.js";
import { hasInlineTests, inlineTestEdits, inlineTestRanges, type InlineTestEdit } from "../measure/diff/inline-tests.js";

const REGULAR = new Set(["100644", "100755", "100664"]);

/** Every edit the change makes to a test of the base that lives inside a source file. */
export async function inlineTestFacts(repo: Repository, base: string, facts: readonly DiffFact[], policy: Policy): Promise<InlineTestEdit[]> {
  const edits: InlineTestEdit[] = [];
  for (const fact of facts) {
    // Only base files that were changed in place, renamed or removed can lose a test; a copy leaves its source alone.
    if (fact.status === "A" || fact.status === "C" || fact.submodule || !REGULAR.has(fact.oldMode)) continue;
    const basePath = fact.oldPath ?? fact.path;
    if (!hasInlineTests(basePath)) continue;
    const text = await readBase(repo, base, basePath, policy.limits.file_bytes);
    if (typeof text !== "string") { edits.push({ path: basePath, test: "(unread)", kind: "module", what: text.unread }); continue; }
    const ranges = inlineTestRanges(basePath, text);
    if (ranges.length === 0) continue;
    const hunks = await hunksOf(repo, fact, text);
    edits.push(...inlineTestEdits(basePath, ranges, hunks, text));
  }
  return edits;
}

/** The base text, or why it could not be read: then its tests cannot be told apart, so the edit fails closed. */
async function readBase(repo: Repository, base: string, path: string, maxBytes: number): Promise<string | { unread: string }> {
  try {
    const blob = await repo.readBlob(base, path, maxBytes);
    return blob === null ? { unread: "base version missing, so its inline tests cannot be checked" } : blob.toString("utf8");
  } catch (error) {
    return { unread: `base version not read (${error instanceof Error ? error.message : String(error)}), so its inline tests cannot be checked` };
  }
}

/** The hunks of the change; a file deleted or replaced by another type loses every line. */
async function hunksOf(repo: Repository, fact: DiffFact, text: string): Promise<Hunk[]> {
  if (fact.status === "D" || !REGULAR.has(fact.newMode)) {
    const count = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return [{ oldStart: 1, oldCount: count, added: [] }];
  }
  if (fact.oldBlob === fact.newBlob) return [];
  return repo.hunks(fact.oldBlob, fact.newBlob);
}
