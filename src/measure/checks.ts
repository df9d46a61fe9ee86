// check:<name>: an extra command from the policy (typecheck, lint), run in the sandbox on head.
import type { Evidence } from "../kernel/types.js";
import type { RunResult } from "../sandbox/types.js";
import { lastLines, runMeta, seconds } from "./tests/run-facts.js";
import { checkRunFact } from "./run-report.js";

export function checkClaim(subject: string, name: string, run: RunResult): Evidence {
  const claim = `check:${name}`;
  const meta = { run: runMeta(run) };
  const runs = [checkRunFact(name, run)];
  const tail = lastLines(run.outputTail, 10);
  const details = tail === "" ? [] : [{ kind: "output", message: tail }];
  if (run.violation !== null) {
    return { claim, subject, outcome: "fail", unsafe: true, reason: `${name}: the sandbox reported a violation (${run.violation})`, details, meta, runs };
  }
  if (run.timedOut) {
    return { claim, subject, outcome: "fail", reason: `${name} timed out after ${seconds(run.durationMs)}`, details, meta, runs };
  }
  if (run.exitCode !== 0) {
    const how = run.exitCode !== null ? `exited ${run.exitCode}` : `was killed by ${run.signal ?? "an unknown signal"}`;
    const last = tail === "" ? "" : `: ${tail.split("\n").at(-1)}`;
    return { claim, subject, outcome: "fail", reason: `${name} ${how}${last}`, details, meta, runs };
  }
  return { claim, subject, outcome: "pass", reason: `${name} exited 0 in ${seconds(run.durationMs)}`, details: [], meta, runs };
}
