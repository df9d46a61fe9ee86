// The rows the agents report is computed from, read from the journal alone (issue 23): every
// verdict of a pull request of one repository, and every override of one. The journal is one chain
// for every repository, so this is a scan, bounded like the journal page's.
import { overridePredicateOf, statementOf, type VerdictPredicate } from "../../attest/index.js";
import type { Journal } from "../../journal/index.js";
import { repositoryOf } from "../journal-view.js";
import type { JudgmentRow, OverrideRow } from "./stats.js";

const MAX_SCAN = 100_000;
export const UNKNOWN_AGENT = "unknown";

export async function agentRows(journal: Journal, repository: string): Promise<{ judgments: JudgmentRow[]; overrides: OverrideRow[] }> {
  const judgments: JudgmentRow[] = [];
  const overrides: OverrideRow[] = [];
  const head = await journal.head();
  for await (const entry of journal.entries({ after: Math.max(0, (head?.sequence ?? 0) - MAX_SCAN) })) {
    if (entry.kind !== "verdict" && entry.kind !== "override") continue;
    const statement = statementOf(entry.payload);
    if (statement === null || repositoryOf(statement) !== repository) continue;
    if (entry.kind === "override") {
      const o = overridePredicateOf(statement);
      if (o !== null) overrides.push({ id: entry.id, verdictEntry: o.overrides.entry, pull: o.pullRequest, by: o.by, reason: o.reason, time: o.time });
      continue;
    }
    // Only pull requests' verdicts: a merge group's or the CLI's judge no agent's pull request.
    const pull = pullOf(statement.subject[0]?.name, repository);
    const p = statement.predicate as Partial<VerdictPredicate>;
    if (pull === null || typeof p.verdict !== "string" || !Array.isArray(p.claims) || typeof p.time !== "string") continue;
    judgments.push({
      id: entry.id, sequence: entry.sequence, pull, head: p.subject?.head ?? "", agent: typeof p.agent === "string" && p.agent !== "" ? p.agent : UNKNOWN_AGENT,
      verdict: p.verdict, class: p.class ?? null, failing: p.claims.filter((c) => c.status !== "pass").map((c) => c.name),
      time: p.time, queuedAt: typeof p.queuedAt === "string" ? p.queuedAt : null,
    });
  }
  return { judgments, overrides };
}

/** The pull request a verdict's subject names (`owner/name@refs/pull/7/head`), in this repository only. */
function pullOf(name: string | undefined, repository: string): number | null {
  const match = /^(.+)@refs\/pull\/(\d+)\/head$/.exec(name ?? "");
  return match === null || match[1]?.toLowerCase() !== repository.toLowerCase() ? null : Number(match[2]);
}
