// Which tests must go from red to green: the ones the task names, plus every test in a file the PR adds.
import type { SuiteRun, Target } from "../report-types.js";
import { isShared, uniqueIds } from "./outcomes.js";

/**
 * Task targets first, in the task's order, then the tests the head report places in the PR's new test
 * files. A task target that lives in a new file is the PR's own writing, so it is marked `new-file`
 * too: a reviewer has to read it either way.
 */
export function collectTargets(taskTargets: readonly string[], newTestFiles: readonly string[], head: SuiteRun): Target[] {
  const newFiles = new Set(newTestFiles);
  const byId = new Map<string, Target>();
  const headCases = head.report?.cases ?? [];
  const fileOf = new Map(headCases.map((c) => [c.id, c.file]));
  for (const id of taskTargets) {
    const file = fileOf.get(id) ?? id.split("::")[0] ?? id;
    if (!byId.has(id)) byId.set(id, { id, origin: newFiles.has(file) ? "new-file" : "task" });
  }
  for (const c of headCases) {
    if (c.file === null || !newFiles.has(c.file)) continue;
    // Same-named tests in a new file: each copy is a target of its own, named by its place (outcomes.ts).
    for (const id of isShared(c) ? uniqueIds({ cases: [c] }) : [c.id]) {
      if (!byId.has(id)) byId.set(id, { id, origin: "new-file" });
    }
  }
  return [...byId.values()];
}
