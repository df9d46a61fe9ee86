import type { Verdict } from "../kernel/index.js";
import { escapeUnsafe } from "../measure/diff/index.js";

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
      policy: s.policy, task: s.task, sandbox: s.sandbox, digest: s.digest,
    },
    claims: verdict.claims.map((c) => ({ name: c.name, status: c.status, cause: c.cause, class: c.class, reason: c.reason, details: c.details, evidence: c.evidence })),
    missing: verdict.missing,
    reasons: verdict.reasons,
    timings,
    ...extra,
  };
}
