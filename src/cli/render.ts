import type { RunFact, Verdict } from "../kernel/index.js";
import { escapeUnsafe } from "../measure/diff/index.js";
import { distinctRuns, runLine } from "../measure/run-report.js";

// How a verdict reads on a terminal and as the CLI's JSON contract (README, "CLI").

/**
 * Escapes control, bidirectional and zero-width characters (the diff claims' own rule), so a path
 * with a newline cannot forge a line of output, nor a bidi mark reorder one.
 */
export const printable = escapeUnsafe;

const MARK: Record<string, string> = { pass: "ok  ", fail: "FAIL", missing: "MISS" };

export function renderTable(verdict: Verdict, timings: Record<string, number>): string {
  const lines: string[] = [];
  const s = verdict.subject;
  lines.push(`repository ${printable(s.repository)}`);
  lines.push(`base ${s.base}  head ${s.head}${s.task ? `  task ${printable(s.task)}` : ""}`);
  if (s.mergeBase !== undefined) lines.push(mergeLine(s));
  lines.push(`policy ${s.policy ?? "(none)"}`);
  lines.push(`subject ${s.digest}`);
  lines.push("");
  const width = Math.max(...verdict.claims.map((c) => c.name.length), 10);
  for (const claim of verdict.claims) {
    lines.push(`  ${MARK[claim.status] ?? claim.status}  ${claim.name.padEnd(width)}  ${printable(claim.reason)}`);
    for (const detail of claim.details.slice(0, 8)) lines.push(`        ${" ".repeat(width)}  - ${printable(detail.message)}`);
    if (claim.details.length > 8) lines.push(`        ${" ".repeat(width)}  … ${claim.details.length - 8} more`);
  }
  lines.push(...runsBlock(distinctRuns(verdict.claims)));
  lines.push("");
  const total = Object.values(timings).length > 0 ? ` (${(sumTop(timings) / 1000).toFixed(1)} s)` : "";
  if (verdict.verdict === "FAIL") {
    lines.push(`verdict FAIL [${verdict.class}]${total}: ${printable(verdict.reasons[0] ?? "")}`);
  } else {
    lines.push(`verdict ${verdict.verdict}${total}${verdict.missing.length ? `: still missing ${verdict.missing.join(", ")}` : ""}`);
  }
  return lines.join("\n") + "\n";
}

/** Where the diff started and what the tests measured, in one line. */
function mergeLine(s: Verdict["subject"]): string {
  const from = `merge base ${s.mergeBase ?? "(not recorded)"}${s.mergeBase === s.base ? " (= base)" : ""}`;
  if (s.mergedTree === null) return `${from}  merged tree none: the merge conflicts, tests not measured`;
  return `${from}  merged tree ${s.mergedTree ?? "(not recorded)"}${s.mergedTree === s.headTree ? " (= head tree)" : ""}`;
}

/**
 * Every run the claims stood on, one line each; a run that did not go as a run should (no report,
 * timed out, a limit, a failed check) shows its last lines of output too: that is what decides.
 */
function runsBlock(runs: readonly RunFact[]): string[] {
  if (runs.length === 0) return [];
  const width = Math.max(...runs.map((r) => r.run.length), 4);
  const lines = ["", "runs"];
  for (const run of runs) {
    lines.push(`  ${run.ok ? "ok  " : "FAIL"}  ${printable(run.run).padEnd(width)}  ${printable(runLine(run))}`);
    if (!run.ok && run.outputTail !== "") {
      for (const line of run.outputTail.split("\n")) lines.push(`        ${" ".repeat(width)}  | ${printable(line)}`);
    }
    if (!run.ok && run.outputTail === "") lines.push(`        ${" ".repeat(width)}  | (it printed nothing)`);
  }
  return lines;
}

function sumTop(timings: Record<string, number>): number {
  // Sub-stages (base, head, check:*) run inside "measure"; count only the top-level stages.
  return ["fetch", "merge", "policy", "diff", "diff-other-bases", "secrets", "materialise", "measure", "evaluate", "sign"]
    .reduce((sum, stage) => sum + (timings[stage] ?? 0), 0);
}

/** The `--json` contract. Fields are only ever added, never renamed. */
export function verdictJson(verdict: Verdict, timings: Record<string, number>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const s = verdict.subject;
  return {
    verdict: verdict.verdict,
    class: verdict.class,
    subject: {
      repository: s.repository, base: s.base, head: s.head, baseTree: s.baseTree, headTree: s.headTree,
      mergeBase: s.mergeBase ?? null, mergedTree: s.mergedTree ?? null,
      policy: s.policy, task: s.task, sandbox: s.sandbox, ...(s.sealed === undefined ? {} : { sealed: s.sealed }), digest: s.digest,
    },
    claims: verdict.claims.map((c) => ({
      name: c.name, status: c.status, cause: c.cause, class: c.class, reason: c.reason, details: c.details, evidence: c.evidence,
      ...(c.runs === undefined ? {} : { runs: c.runs.map((r) => r.run) }),
    })),
    missing: verdict.missing,
    reasons: verdict.reasons,
    timings,
    // Every run the claims stood on: exit status, timeout, limit, stage timings, report, output tail.
    runs: distinctRuns(verdict.claims),
    ...extra,
  };
}
