// `ranex agents --repo owner/name [--json]` (issue 23): the agents page's numbers in the terminal,
// from the same pure module (src/web/agents/stats.ts), read from the same journal.
import { parseArgs } from "node:util";
import { agentRows } from "../../web/agents/read.js";
import { duration } from "../../web/agents/charts.js";
import { agentsReport, type AgentStats, type AgentsReport } from "../../web/agents/stats.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type Command } from "../io.js";
import { withJournal } from "./journal.js";

const USAGE = "usage: ranex agents --repo <owner/name> [--json] [--data-dir <d>]";

export const run: Command = async (args, io) => {
  let values: { repo?: string; json?: boolean };
  try {
    values = parseArgs({ args, options: { repo: { type: "string" }, json: { type: "boolean" }, "data-dir": { type: "string" } }, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const repository = values.repo ?? "";
  if (!/^[^/\s]+\/[^/\s]+$/.test(repository)) throw new UsageError(`name the repository as owner/name\n${USAGE}`);
  const rows = await withJournal(dataDirFrom(args, io.env, io.cwd), io, (journal) => agentRows(journal, repository));
  const report = agentsReport(rows.judgments, rows.overrides);
  io.stdout(values.json === true ? `${JSON.stringify({ repository, ...report }, null, 2)}\n` : text(repository, report));
  return 0;
};

function text(repository: string, report: AgentsReport): string {
  if (report.agents.length === 0) return `${repository}: no agent's pull request has been judged yet.\n`;
  const lines = [`${repository}: ${report.judgments} judgments, ${report.overrides} overrides, weeks ${report.weeks[0]} to ${report.weeks.at(-1)}`, ""];
  for (const a of report.agents) lines.push(...agentLines(a), "");
  return `${lines.join("\n").trimEnd()}\n`;
}

function agentLines(a: AgentStats): string[] {
  const rate = a.candidateRate === null ? "-" : `${Math.round(a.candidateRate * 100)}%`;
  const ms = (v: number | null) => (v === null ? "-" : duration(v));
  const list = (items: readonly { name: string; count: number }[], prefix = "") => (items.length === 0 ? "none" : items.map((c) => `${prefix}${c.name} ${c.count}`).join(", "));
  return [
    `${a.agent}`,
    `  PRs judged        ${a.pullRequests}`,
    `  judgments         ${a.judgments} (${a.candidates} CANDIDATE, ${a.fails} FAIL)`,
    `  CANDIDATE rate    ${rate}`,
    `  FAILs by class    unsafe ${a.failsByClass.unsafe}, incomplete ${a.failsByClass.incomplete}`,
    `  FAILs by claim    ${list(a.failsByClaim)}`,
    `  retries used      ${a.retries}`,
    `  overrides         ${a.overrides}${a.overrides === 0 ? "" : ` (${list(a.overridesBy, "@")})`}`,
    `  push to verdict   median ${ms(a.latency.median)}, p90 ${ms(a.latency.p90)} (${a.latency.measured} timed)`,
    `  by week           ${a.weeks.map((w) => `${w.week} ${w.candidates}/${w.judgments}`).join("  ")}`,
  ];
}
