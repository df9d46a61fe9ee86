// Which tests must go from red to green: the ones the task names, plus the tests the PR adds.
import type { SuiteRun, Target } from "../report-types.js";
import { isShared, uniqueIds } from "./outcomes.js";
import { fileOfId } from "./run-facts.js";

/**
 * Task targets first, in the task's order, then the PR's own tests: every test of the whole head
 * (`headNew`) that lies in a file the PR adds, or that the head without those files (`head`) does
 * not have. The id-set difference is what finds them when the runner names no file (Node 20's
 * junit). A task target in a new file is the PR's own writing, so it is marked `new-file` too: a
 * reviewer has to read it either way. Without `headNew` (older callers, or no new test files),
 * `head` is the whole head and only the file rule applies.
 */
export function collectTargets(
  taskTargets: readonly string[], newTestFiles: readonly string[], head: SuiteRun, headNew: SuiteRun | null = null,
): Target[] {
  const newFiles = new Set(newTestFiles);
  const whole = headNew ?? head;
  const wholeCases = whole.report?.cases ?? [];
  // Only a head run that reported can tell what is new by difference; otherwise files alone decide.
  const without = headNew !== null && head.report !== null ? new Set(head.report.cases.map((c) => c.id)) : null;
  const isNew = (c: { id: string; file: string | null }): boolean =>
    (c.file !== null && newFiles.has(c.file)) || (without !== null && !without.has(c.id));
  const byId = new Map<string, Target>();
  const caseOf = new Map(wholeCases.map((c) => [c.id, c]));
  for (const id of taskTargets) {
    const found = caseOf.get(id);
    const file = found?.file ?? fileOfId(id);
    const own = newFiles.has(file) || (found !== undefined && isNew(found));
    if (!byId.has(id)) byId.set(id, { id, origin: own ? "new-file" : "task" });
  }
  if (newFiles.size > 0) {
    for (const c of wholeCases) {
      if (!isNew(c)) continue;
      // Same-named tests in a new file: each copy is a target of its own, named by its place (outcomes.ts).
      for (const id of isShared(c) ? uniqueIds({ cases: [c] }) : [c.id]) {
        if (!byId.has(id)) byId.set(id, { id, origin: "new-file" });
      }
    }
  }
  return [...byId.values()];
}
