// What the sealed runs may say outside the measuring process (issue 20): per sealed test its short
// id and how it ended on each side; per run its exit, limits, timings and counts, with the output
// withheld; problems in the gate's own words. Never a test's name, a path, output or a message.
import { sealedTestId } from "../attest/index.js";
import type { RunFact } from "../kernel/types.js";
import type { SealedOutcome, SealedTestOutcome } from "./plan.js";
import type { SuiteRun, TestCaseResult } from "./report-types.js";
import { suiteRunFact } from "./run-report.js";
import { disagreement, fileOfId, isGreen, isRed, violations } from "./tests/run-facts.js";

export const WITHHELD_OUTPUT = "(output withheld: a run of sealed tests)";

export function summariseSealed(idKey: Buffer, paths: readonly string[], base: SuiteRun | null, head: SuiteRun | null): SealedOutcome {
  const sealedPaths = new Set(paths);
  const isSealed = (c: TestCaseResult): boolean => sealedPaths.has(c.file ?? fileOfId(c.id));
  const problems: string[] = [];
  const runs = [head, base].filter((r): r is SuiteRun => r !== null);
  for (const name of ["sealed-head", "sealed-base"] as const) if (!runs.some((r) => r.label === name)) problems.push(`the ${name} run did not happen`);
  const unsafeFound = violations(...runs).map((v) => `the sandbox reported a violation in ${v.slice(0, v.indexOf(":"))}`);
  problems.push(...unsafeFound);
  let forged = false;
  for (const run of runs) {
    const problem = runProblem(run) ?? disagreement(run);
    if (problem !== null) problems.push(problem);
  }
  if (head?.canary !== undefined && (head.canary.result === "passed" || (head.canary.result === "skipped" && head.canary.othersRan))) {
    forged = true;
    problems.unshift(`the results of sealed-head were rewritten: the gate's canary, which always fails, was reported ${head.canary.result}`);
  }

  const outcomeOf = (run: SuiteRun | null): Map<string, string> => {
    const out = new Map<string, string>();
    for (const c of run?.report?.cases ?? []) if (isSealed(c)) out.set(c.id, word(c));
    return out;
  };
  const before = outcomeOf(base);
  const after = outcomeOf(head);
  const baseLoad = (base?.report?.loadErrors ?? []).filter((f) => sealedPaths.has(f));
  const headLoad = (head?.report?.loadErrors ?? []).filter((f) => sealedPaths.has(f));
  if (headLoad.length > 0) problems.push(`${headLoad.length} of ${paths.length} sealed test files failed to load on head`);
  if (head?.report != null && after.size === 0 && headLoad.length === 0) {
    problems.push("no sealed test was collected on head: the test command does not reach the sealed files, or the head keeps them from running");
  }
  const ids = [...new Set([...before.keys(), ...after.keys()])];
  const tests: SealedTestOutcome[] = ids.map((id) => {
    const file = fileOfId(id);
    return {
      id: sealedTestId(idKey, id),
      base: before.get(id) ?? (baseLoad.includes(file) ? "load-error" : "absent"),
      head: after.get(id) ?? (headLoad.includes(file) ? "load-error" : "absent"),
    };
  }).sort((a, b) => a.id.localeCompare(b.id));
  return { opened: true, files: paths.length, tests, runs: runs.map(withheld), problems, unsafe: forged || unsafeFound.length > 0 };
}

function word(c: TestCaseResult): string {
  if (isGreen(c)) return "passed";
  if (isRed(c)) return c.result;
  return c.flavour ?? c.result;
}

/** The run's facts without a byte of its output; the report's own words (a parse error quotes it) neither. */
function withheld(run: SuiteRun): RunFact {
  const fact = suiteRunFact(run);
  const report = run.report !== null ? fact.report : run.command === null ? fact.report : "no usable JUnit report";
  return { ...fact, report, outputTail: WITHHELD_OUTPUT };
}

/** run-facts' runProblem without the output's last lines or the report's own words. */
function runProblem(run: SuiteRun): string | null {
  const { label, setup, command } = run;
  const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  if (setup !== null && setup.timedOut) return `the ${label} setup timed out after ${secs(setup.durationMs)}`;
  if (setup !== null && setup.exitCode !== 0) return `the ${label} setup failed (exit ${setup.exitCode ?? setup.signal ?? "unknown"})`;
  if (command === null) return `the ${label} test command did not run`;
  if (command.timedOut) return `the ${label} test run timed out after ${secs(command.durationMs)}`;
  if (command.exitCode === null) return `the ${label} test run was killed by ${command.signal ?? "a signal"} after ${secs(command.durationMs)}`;
  if (run.report === null) return `the ${label} test run wrote no usable JUnit report (exit ${command.exitCode})`;
  return null;
}

/** Whether a sealed test holds: red (or absent) on base, green on head. */
export function sealedHolds(t: SealedTestOutcome): { red: boolean; green: boolean } {
  return { red: ["failed", "errored", "absent", "load-error"].includes(t.base), green: t.head === "passed" };
}
