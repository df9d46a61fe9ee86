// Running only some tests (the targets of tests.stable's repeats, the tests a mutant must face), so
// a repeat costs a run of those tests rather than of the whole suite. Each runner's module says how
// it selects (src/runners: pytest through the gate's plugin, jest through its launcher, ...); any
// runner can be selected through the policy's `tests.select` command.
import { readFile } from "node:fs/promises";
import { canSelectCommand, selectFilesWith, selectWith, type Selection } from "../runners/index.js";
import { runsPytest } from "../runners/pytest.js";
import { runsGateJest } from "../runners/jest.js";
import type { SuiteRun } from "./report-types.js";

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
 * `listFile` is where the caller writes the ids, as the run sees that path. `tree`: the tree the run
 * uses, and whether a run of the same command already built it (src/runners/types.ts SelectContext).
 */
export function selectionFor(
  tests: { command?: string; select?: string }, ids: readonly string[], listFile: string, backend: "bwrap" | "none", tree: { treeDir?: string; built?: boolean } = {},
): Selection | null {
  const common = { RANEX_SELECT_FILE: listFile, RANEX_SELECT_PATTERN: namePattern(ids) };
  if (tests.select !== undefined) return { command: tests.select, env: common, how: "tests.select" };
  if (tests.command === undefined) return null;
  return selectWith(tests.command, { ids, listFile, backend, common, ...tree });
}

/** The list file's text: one id a line. */
export function selectionList(ids: readonly string[]): string {
  return `${[...new Set(ids)].join("\n")}\n`;
}

/**
 * Why a run of a selection cannot be read as the selected tests' outcomes, or null when it proves
 * that the selection took effect (issue 22: a selection that did not take effect is never an
 * outcome). The gate's pytest plugin proves itself: it writes `<list>.ran` with every wanted id a
 * collected test matched, so a plugin that never loaded (a command that sets PYTHONPATH or
 * PYTEST_ADDOPTS itself) or a filter that matched nothing is seen even when the run timed out or
 * lost its report. Other selections (the jest and vitest launchers, `tests.select`) prove it by their
 * report: every selected id must be in it, and not skipped where the runner reports what its filter
 * left out as skipped (`Selection.skipsLeftOut`).
 */
export async function selectionUnproven(selection: Selection, ids: readonly string[], listFile: string, run: SuiteRun): Promise<string | null> {
  if (run.command === null) return null; // setup failed before any test ran: that is the run's own problem, not the selection's
  const wanted = [...new Set(ids)];
  if (selection.how === "pytest plugin") {
    let proof: string;
    try {
      proof = await readFile(`${listFile}.ran`, "utf8");
    } catch {
      return "the gate's pytest plugin did not load (does the command set PYTHONPATH or PYTEST_ADDOPTS itself?)";
    }
    const matched = new Set(proof.split("\n").filter((l) => l !== ""));
    const unmatched = wanted.filter((id) => !matched.has(id));
    return unmatched.length === 0 ? null : `the gate's pytest plugin matched no collected test for ${unmatched.join(", ")}`;
  }
  if (run.report === null) return `the run of the selection left no report (${run.reportError ?? "no report"})`;
  const reported = new Set(run.report.cases.map((c) => c.id));
  const missing = wanted.filter((id) => !reported.has(id));
  if (missing.length > 0) return `the run of the selection (${selection.how}) did not report ${missing.join(", ")}`;
  // vitest and jest report a test their name pattern left out as skipped: a listed test reported
  // skipped did not run (whether the pattern missed it or the test skips itself: the whole suite says which).
  if (selection.skipsLeftOut === true) {
    const skipped = run.report.cases.filter((c) => wanted.includes(c.id) && c.result === "skipped");
    if (skipped.length > 0) return `the run of the selection (${selection.how}) skipped ${skipped.map((c) => c.id).join(", ")}`;
  }
  return null;
}

/**
 * How to run only the tests of `files` (the PR's new test files, for its own runs `head+new` and
 * `base+new`) with this policy's runner, or null: then the whole suite runs, as it always did. Only
 * the runner's own module can say (a `tests.select` command takes ids, not files).
 */
export function filesSelectionFor(tests: { command?: string }, files: readonly string[], listFile: string, treeDir: string, backend: "bwrap" | "none"): Selection | null {
  if (tests.command === undefined || files.length === 0) return null;
  return selectFilesWith(tests.command, { files, treeDir, backend, common: { RANEX_SELECT_FILE: listFile } });
}

/**
 * Why a run of a file selection cannot stand for the whole suite's run of those files, or null when
 * it proves it ran every one of them: each file is in its report, as the file of a test case or as
 * a file that failed to load (a file of no test case at all proves nothing, so the whole suite runs
 * then). The gate's pytest plugin must have proved it loaded too, or the run was not the selection;
 * a launcher that refused (its command names test paths of its own) ran nothing.
 * More than the files (a Go package's other test files) is allowed: no claim reads those tests here.
 */
export async function filesUnproven(selection: Selection, files: readonly string[], listFile: string, run: SuiteRun): Promise<string | null> {
  if (run.command === null) return null; // setup failed before any test ran: the run's own problem
  // A launcher of the gate's own that cannot narrow its command says why and runs nothing (reporters/select-files.cjs).
  const refused = await readFile(`${listFile}.refused`, "utf8").catch(() => null);
  if (refused !== null) return `the launcher refused: ${refused.trim()}`;
  if (selection.how.startsWith("pytest plugin")) {
    const proof = await readFile(`${listFile}.ran`, "utf8").catch(() => null);
    if (proof === null) return "the gate's pytest plugin did not load (does the command set PYTHONPATH or PYTEST_ADDOPTS itself?)";
  }
  if (run.report === null) return `the run of the selection left no report (${run.reportError ?? "no report"})`;
  const seen = new Set([...run.report.cases.map((c) => c.file), ...run.report.loadErrors]);
  const missing = [...new Set(files)].filter((f) => !seen.has(f));
  return missing.length === 0 ? null : `the run of the selection (${selection.how}) reported nothing of ${missing.join(", ")}`;
}
