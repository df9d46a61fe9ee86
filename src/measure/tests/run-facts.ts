// What the test claims read off a suite run: whether it is usable at all, whether its exit status
// agrees with its report, and the meta every Evidence records (what it stood on).
import type { RunResult } from "../../sandbox/types.js";
import type { SuiteRun, TestCaseResult, TestReport } from "../report-types.js";

const TAIL_BYTES = 2048;

/** The last ~2 KiB of output, cut on a character boundary. */
export function outputTail(text: string, bytes = TAIL_BYTES): string {
  const buffer = Buffer.from(text, "utf8");
  if (buffer.length <= bytes) return text;
  return buffer.subarray(buffer.length - bytes).toString("utf8").replace(/^\uFFFD+/, "");
}

/** The last few non-empty lines of output, for a reason a person reads. */
export function lastLines(text: string, count = 8): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  return lines.slice(-count).join("\n");
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function runMeta(run: RunResult | null): Record<string, unknown> | null {
  if (run === null) return null;
  return {
    exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, durationMs: run.durationMs,
    outputTail: outputTail(run.outputTail), outputBytes: run.outputBytes, outputTruncated: run.outputTruncated,
    peakMemoryBytes: run.peakMemoryBytes, cpuMs: run.cpuMs, violation: run.violation,
  };
}

export function suiteMeta(run: SuiteRun): Record<string, unknown> {
  return {
    setup: runMeta(run.setup),
    command: runMeta(run.command),
    junitDigest: run.report?.digest ?? null,
    cases: run.report?.cases.length ?? null,
    reportError: run.reportError,
    notes: run.report?.notes ?? [],
    ...(run.canary !== undefined ? { canary: run.canary } : {}),
    ...(run.provenance !== undefined ? { provenance: provenanceMeta(run.provenance) } : {}),
  };
}

/** The record as the verdict keeps it: counts, and the entries that can decide (bounded by the record). */
function provenanceMeta(p: NonNullable<SuiteRun["provenance"]>): Record<string, unknown> {
  const r = p.record;
  return {
    placed: p.placed, notes: p.notes, processes: r.processes.length, treeFiles: r.code.length,
    // Python processes whose hook filtered its events in C (../provenance/python-accel.ts).
    ...(r.processes.some((q) => q.lang === "python") ? { pythonAccelerated: r.processes.filter((q) => q.accel === true).length } : {}),
    compiled: r.code.filter((c) => c.kind === "bytecode" || c.kind === "native").map((c) => c.path),
    shadows: r.code.filter((c) => c.shadows !== undefined).map((c) => `${c.path} (${c.shadows ?? ""})`),
    metadata: r.metadata, events: r.events.map((e) => `${e.event} ${e.what} ${e.by}${e.line > 0 ? `:${e.line}` : ""}`.trim()),
    dropped: r.dropped, bytes: r.bytes,
  };
}

function exitText(run: RunResult): string {
  if (run.exitCode !== null) return `exit ${run.exitCode}`;
  return run.signal !== null ? `killed by ${run.signal}` : "no exit status";
}

/** Why this run cannot be used at all, or null. Setup failures carry the output's last lines. */
export function runProblem(run: SuiteRun): string | null {
  const { label, setup, command } = run;
  if (setup !== null && setup.timedOut) return `the ${label} setup timed out after ${seconds(setup.durationMs)}`;
  if (setup !== null && setup.exitCode !== 0) {
    return `the ${label} setup failed (${exitText(setup)}):\n${lastLines(setup.outputTail)}`.trimEnd();
  }
  if (command === null) return `the ${label} test command did not run`;
  if (command.timedOut) return `the ${label} test run timed out after ${seconds(command.durationMs)}`;
  if (command.exitCode === null) return `the ${label} test run was ${exitText(command)} after ${seconds(command.durationMs)}`;
  if (run.report === null) {
    // Say how the command ended and what it last printed: "wrote none" alone leaves a person guessing.
    const last = lastLines(command.outputTail, 1);
    return `${label}: ${run.reportError ?? "no JUnit report"} (the test command ${exitText(command).replace(/^exit /, "exited ")} after ${seconds(command.durationMs)}${last === "" ? ", printing nothing" : `; its last line: ${last.length > 160 ? `${last.slice(0, 159)}…` : last}`})`;
  }
  return null;
}

/** Containment problems the runner saw in any of these runs: they make the evidence unsafe. */
export function violations(...runs: SuiteRun[]): string[] {
  return runs.flatMap((run) => [run.setup, run.command]
    .filter((r): r is RunResult => r !== null && r.violation !== null)
    .map((r) => `${run.label}: ${r.violation}`));
}

export function isRed(c: TestCaseResult): boolean {
  // A strict xpass is written as a failure, but the test passed: it is not red.
  return (c.result === "failed" || c.result === "errored") && c.flavour !== "xpass";
}

export function isGreen(c: TestCaseResult): boolean {
  return c.result === "passed" && c.flavour === undefined;
}

/** How a case ended, in one word a person recognises. */
export function resultWord(c: TestCaseResult | undefined): string {
  if (c === undefined) return "absent";
  return c.flavour ?? c.result;
}

/** exitDisagreement for a run, counting its canary (taken out of the report) as the failure it is. */
export function disagreement(run: SuiteRun): string | null {
  if (run.command === null || run.report === null) return null;
  const members = run.canary?.members;
  const canaryRed = members !== undefined
    ? members.filter((m) => m.result === "failed" || m.result === "errored").length
    : run.canary?.result === "failed" || run.canary?.result === "errored" ? 1 : 0;
  return exitDisagreement(run.label, run.command, run.report, canaryRed);
}

/** When the exit status and the report tell different stories, the report may have been forged. */
export function exitDisagreement(label: string, command: RunResult, report: TestReport, extraRed = 0): string | null {
  const red = report.cases.filter(isRed).length + report.loadErrors.length + extraRed;
  if (command.exitCode === 0 && red > 0) {
    return `the ${label} test command exited 0 but its report has ${red} failing tests or files`;
  }
  if (command.exitCode !== 0 && red === 0 && report.cases.some((c) => c.result === "failed" || c.result === "errored") === false) {
    return `the ${label} test command exited ${command.exitCode ?? "abnormally"} but every test in its report passed or was skipped`;
  }
  return null;
}

export function casesById(report: TestReport): Map<string, TestCaseResult> {
  return new Map(report.cases.map((c) => [c.id, c]));
}

/** The file part of a test id (`tests/test_x.py::TestX::test_y` -> `tests/test_x.py`). */
export function fileOfId(id: string): string {
  const index = id.indexOf("::");
  return index === -1 ? id : id.slice(0, index);
}

/** The reason the report gave for a file that failed to load, if it gave one. */
export function loadErrorReason(report: TestReport, file: string): string | undefined {
  return report.loadErrorMessages?.find((m) => m.file === file)?.message;
}

/** A file that failed to load, with its reason when the report gave one: `test/a.test.js (Cannot find module …)`. */
export function withLoadReason(report: TestReport, file: string): string {
  const reason = loadErrorReason(report, file);
  return reason === undefined ? file : `${file} (${reason})`;
}

export function listed(ids: readonly string[], limit = 5): string {
  const shown = ids.slice(0, limit).join(", ");
  return ids.length > limit ? `${shown} and ${ids.length - limit} more` : shown;
}
