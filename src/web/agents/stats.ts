// How each agent is doing (issue 23), as a pure function of rows read from the journal: no I/O, no
// clock. The agents page and `ranex agents` both print these numbers, so they never disagree.
import type { FailClass, VerdictName } from "../../kernel/index.js";

/** One signed verdict of an agent's pull request, as the journal holds it. */
export interface JudgmentRow {
  id: string;
  sequence: number;
  pull: number;
  head: string;
  /** The agent identity signed into the verdict; `unknown` for verdicts signed before it was. */
  agent: string;
  verdict: VerdictName;
  class: FailClass | null;
  /** Claims whose status is `fail` or `missing`. */
  failing: string[];
  /** ISO time of the verdict. */
  time: string;
  /** ISO time the judgment was asked for (the push's webhook); null when not recorded. */
  queuedAt: string | null;
}

/** One signed override. */
export interface OverrideRow {
  id: string;
  verdictEntry: string;
  pull: number;
  by: string;
  reason: string;
  time: string;
}

export interface Count {
  name: string;
  count: number;
}

export interface WeekStats {
  /** The week's Monday (UTC), `YYYY-MM-DD`. */
  week: string;
  judgments: number;
  candidates: number;
  fails: number;
  overrides: number;
  /** Median time from push to verdict that week, in ms; null when none was recorded. */
  medianMs: number | null;
}

export interface LastJudgment extends JudgmentRow {
  /** Who overrode this verdict, when someone did. */
  overriddenBy: string | null;
}

export interface AgentStats {
  agent: string;
  pullRequests: number;
  judgments: number;
  candidates: number;
  /** candidates / judgments; null with no judgment. */
  candidateRate: number | null;
  fails: number;
  failsByClass: { unsafe: number; incomplete: number };
  /** Each claim and how many FAIL verdicts it failed (or lacked evidence) in, most first. */
  failsByClaim: Count[];
  /** Retry budget spent: FAILs of class incomplete (each costs one unit of `retries`). */
  retries: number;
  overrides: number;
  overridesBy: Count[];
  /** Time from push to verdict, ms: median and 90th percentile (nearest rank); null without timings. */
  latency: { median: number | null; p90: number | null; measured: number };
  weeks: WeekStats[];
  /** The newest judgments first. */
  last: LastJudgment[];
}

export interface AgentsReport {
  judgments: number;
  overrides: number;
  /** Every week from the first judgment's to the last one's, the same for every agent. */
  weeks: string[];
  agents: AgentStats[];
}

export const LAST_SHOWN = 10;

export function agentsReport(judgments: readonly JudgmentRow[], overrides: readonly OverrideRow[], last = LAST_SHOWN): AgentsReport {
  const sorted = [...judgments].sort((a, b) => a.sequence - b.sequence);
  const weeks = weekRange(sorted.map((j) => j.time));
  const byVerdict = new Map<string, OverrideRow[]>();
  for (const o of overrides) byVerdict.set(o.verdictEntry, [...(byVerdict.get(o.verdictEntry) ?? []), o]);
  const agents = [...new Set(sorted.map((j) => j.agent))].sort((a, b) => a.localeCompare(b));
  return {
    judgments: sorted.length,
    overrides: overrides.filter((o) => sorted.some((j) => j.id === o.verdictEntry)).length,
    weeks,
    agents: agents.map((agent) => statsOf(agent, sorted.filter((j) => j.agent === agent), byVerdict, weeks, last)),
  };
}

function statsOf(agent: string, rows: readonly JudgmentRow[], byVerdict: ReadonlyMap<string, OverrideRow[]>, weeks: readonly string[], last: number): AgentStats {
  const fails = rows.filter((r) => r.verdict === "FAIL");
  const candidates = rows.filter((r) => r.verdict === "CANDIDATE").length;
  const overrides = rows.flatMap((r) => byVerdict.get(r.id) ?? []);
  const latencies = rows.map(latencyOf).filter((ms): ms is number => ms !== null);
  const lastOverride = (id: string) => byVerdict.get(id)?.at(-1)?.by ?? null;
  return {
    agent,
    pullRequests: new Set(rows.map((r) => r.pull)).size,
    judgments: rows.length,
    candidates,
    candidateRate: rows.length === 0 ? null : candidates / rows.length,
    fails: fails.length,
    failsByClass: { unsafe: fails.filter((f) => f.class === "unsafe").length, incomplete: fails.filter((f) => f.class !== "unsafe").length },
    failsByClaim: counted(fails.flatMap((f) => [...new Set(f.failing)])),
    retries: fails.filter((f) => f.class === "incomplete").length,
    overrides: overrides.length,
    overridesBy: counted(overrides.map((o) => o.by)),
    latency: { median: median(latencies), p90: percentile(latencies, 0.9), measured: latencies.length },
    weeks: weeks.map((week) => weekOf(week, rows.filter((r) => weekStart(r.time) === week), byVerdict)),
    last: [...rows].reverse().slice(0, last).map((r) => ({ ...r, overriddenBy: lastOverride(r.id) })),
  };
}

function weekOf(week: string, rows: readonly JudgmentRow[], byVerdict: ReadonlyMap<string, OverrideRow[]>): WeekStats {
  const candidates = rows.filter((r) => r.verdict === "CANDIDATE").length;
  return {
    week, judgments: rows.length, candidates, fails: rows.filter((r) => r.verdict === "FAIL").length,
    overrides: rows.reduce((n, r) => n + (byVerdict.get(r.id)?.length ?? 0), 0),
    medianMs: median(rows.map(latencyOf).filter((ms): ms is number => ms !== null)),
  };
}

/** Push to verdict, ms; null when the push time was not recorded or the clock went backwards. */
export function latencyOf(row: Pick<JudgmentRow, "time" | "queuedAt">): number | null {
  if (row.queuedAt === null) return null;
  const ms = Date.parse(row.time) - Date.parse(row.queuedAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The nearest-rank percentile: the smallest value with at least p of the values at or below it. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)]!;
}

/** The Monday (UTC) of the week an ISO time falls in, `YYYY-MM-DD`. */
export function weekStart(iso: string): string {
  const d = new Date(iso);
  const day = (d.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day)).toISOString().slice(0, 10);
}

/** Every Monday from the earliest time's week to the latest's. */
export function weekRange(times: readonly string[]): string[] {
  const valid = times.filter((t) => Number.isFinite(Date.parse(t)));
  if (valid.length === 0) return [];
  const starts = valid.map(weekStart).sort();
  const out: string[] = [];
  const end = Date.parse(`${starts.at(-1)!}T00:00:00Z`);
  for (let t = Date.parse(`${starts[0]!}T00:00:00Z`); t <= end; t += 7 * 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

function counted(names: readonly string[]): Count[] {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts.entries()].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}
