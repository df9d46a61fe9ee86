// Running only some tests (the targets of tests.stable's repeats, the tests a mutant must face), so
// a repeat costs a run of those tests rather than of the whole suite. Each runner's module says how
// it selects (src/runners: pytest through the gate's plugin, jest through its launcher, ...); any
// runner can be selected through the policy's `tests.select` command.
import { canSelectCommand, selectWith, type Selection } from "../runners/index.js";
import { runsPytest } from "../runners/pytest.js";
import { runsGateJest } from "../runners/jest.js";

export type { Selection } from "../runners/index.js";
export { runsGateJest, runsPytest };

/** A regular expression matching exactly the given test names (the part after the last `::`). */
export function namePattern(ids: readonly string[]): string {
  const names = [...new Set(ids.map((id) => id.slice(id.lastIndexOf("::") + (id.includes("::") ? 2 : 0))))].sort();
  return `^(?:${names.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|")})$`;
}

/** Whether this policy's runner can be told to run only some tests (its module selects, or a `tests.select`). */
export function canSelect(tests: { command?: string; select?: string }): boolean {
  return tests.select !== undefined || (tests.command !== undefined && canSelectCommand(tests.command));
}

/**
 * How to run only `ids` with this policy, or null when the runner cannot be told (repeat the suite).
 * `listFile` is where the caller writes the ids, as the run sees that path.
 */
export function selectionFor(tests: { command?: string; select?: string }, ids: readonly string[], listFile: string, backend: "bwrap" | "none"): Selection | null {
  const common = { RANEX_SELECT_FILE: listFile, RANEX_SELECT_PATTERN: namePattern(ids) };
  if (tests.select !== undefined) return { command: tests.select, env: common, how: "tests.select" };
  if (tests.command === undefined) return null;
  return selectWith(tests.command, { ids, listFile, backend, common });
}

/** The list file's text: one id a line. */
export function selectionList(ids: readonly string[]): string {
  return `${[...new Set(ids)].join("\n")}\n`;
}
