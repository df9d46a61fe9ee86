// What each run did, as the verdict shows it (issue 15, "Verdicts say why"): exit status, timeout or
// limit, stage timings and the last lines of output, for the base and head runs and every check.
// Built here from the raw runs; the CLI table, the JSON, the check run and the verdict page all read
// the same facts from the verdict.
import type { ClaimResult, RunFact } from "../kernel/types.js";
import type { RunResult } from "../sandbox/types.js";
import type { SuiteRun } from "./report-types.js";
import { provenanceLine } from "./provenance/judge.js";

/** Lines and characters of output kept per run: enough to see an error, never a flood. */
export const TAIL_LINES = 20;
const TAIL_CHARS = 2000;

export function tailOf(output: string): string {
  const lines = output.split(/\r?\n/).filter((line) => line.trim() !== "").slice(-TAIL_LINES).join("\n");
  return lines.length > TAIL_CHARS ? `…${lines.slice(lines.length - TAIL_CHARS + 1)}` : lines;
}

const secondsText = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The facts of one test run (setup, then the test command), whatever its label. */
export function suiteRunFact(run: SuiteRun): RunFact {
  const stages: Record<string, number> = {};
  if (run.setup !== null) stages.setup = run.setup.durationMs;
  if (run.command !== null) stages.tests = run.command.durationMs;
  const last = run.command ?? run.setup;
  const report = run.report !== null
    ? `${run.report.cases.length} test ${run.report.cases.length === 1 ? "case" : "cases"}${run.report.loadErrors.length > 0 ? `, ${run.report.loadErrors.length} ${run.report.loadErrors.length === 1 ? "file" : "files"} failed to load` : ""}`
    : run.command === null ? (last === null ? "not run" : "not run: setup did not succeed")
      : run.reportError ?? "no JUnit report";
  const only = run.selectedFiles !== undefined ? `; selected for the PR's new test files: ${run.selectedFiles.join(", ")}`
    : run.selectionLost !== undefined && run.selected === undefined ? `; the whole suite ran: selecting the PR's new test files did not take effect (${run.selectionLost})` : "";
  const limit = [run.setup?.violation, run.command?.violation].find((v): v is string => typeof v === "string") ?? null;
  const ranToEnd = last !== null && !last.timedOut && last.exitCode !== null;
  const setup = run.deps === undefined ? {} : { setup: depsText(run.deps) };
  const seen = provenanceLine(run.provenance);
  return {
    run: run.label, stage: run.command !== null ? "tests" : run.setup !== null ? "setup" : "tests",
    exitCode: last?.exitCode ?? null, signal: last?.signal ?? null, timedOut: last?.timedOut ?? false,
    limit, stages, report: report + only,
    ok: ranToEnd && limit === null && run.command !== null && run.report !== null,
    outputTail: tailOf(last?.outputTail ?? ""), ...setup, ...(seen === undefined ? {} : { provenance: seen }),
  };
}

/** How a run got its dependencies: a hit reads as one, never as a setup that ran again. */
export function depsText(deps: NonNullable<SuiteRun["deps"]>): string {
  const std = deps.goStd === undefined ? "" : `; ${deps.goStd}`;
  if (deps.hit) {
    const { installed } = deps;
    const when = installed === undefined ? "" : `installed once in ${secondsText(installed.ms)}${installed.on === "" ? "" : ` on ${installed.on}`}, `;
    return `dependencies from cache (${when}key ${deps.key})${std}`;
  }
  return `ran once for all runs${deps.setupMs === null ? "" : ` in ${secondsText(deps.setupMs)}`} (key ${deps.key})${std}`;
}

/** The facts of one check (`check:<name>`). */
export function checkRunFact(name: string, run: RunResult): RunFact {
  return {
    run: `check:${name}`, stage: "check",
    exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, limit: run.violation,
    stages: { check: run.durationMs }, report: null,
    ok: run.exitCode === 0 && !run.timedOut && run.violation === null,
    outputTail: tailOf(run.outputTail),
  };
}

/** Every run the verdict's claims name, each once, in claim order. */
export function distinctRuns(claims: readonly Pick<ClaimResult, "runs">[]): RunFact[] {
  const seen = new Set<string>();
  const out: RunFact[] = [];
  for (const claim of claims) {
    for (const run of claim.runs ?? []) {
      const key = JSON.stringify([run.run, run.stage, run.exitCode, run.signal, run.timedOut, run.limit, run.stages, run.report, run.outputTail, run.setup, run.provenance]);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(run);
      }
    }
  }
  return out;
}

/** "exit 2", "timed out", "killed by SIGKILL", … */
export function endText(run: RunFact): string {
  if (run.timedOut) return `timed out in ${run.stage}`;
  if (run.exitCode !== null) return `${run.stage === "setup" ? "setup " : ""}exit ${run.exitCode}`;
  return run.signal !== null ? `killed by ${run.signal}` : "no exit status";
}

/** One line: `exit 2 · setup 1.2 s · tests 3.4 s · no JUnit report …` (untrusted parts unescaped). */
export function runLine(run: RunFact): string {
  const parts = [endText(run)];
  if (run.limit !== null) parts.push(`limit: ${run.limit}`);
  for (const [stage, ms] of Object.entries(run.stages)) parts.push(`${stage} ${secondsText(ms)}`);
  if (run.report !== null) parts.push(run.report);
  if (run.setup !== undefined) parts.push(`setup: ${run.setup}`);
  if (run.provenance !== undefined) parts.push(run.provenance);
  return parts.join(" · ");
}
