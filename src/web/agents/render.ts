// The agents page (issue 23): how each agent of one repository is doing, from the journal alone.
// One summary table, then per agent its FAILs by claim, its overrides, two charts and its last
// judgments, each linking to its verdict page. No script: the charts are SVG drawn on the server.
import { html, type Html } from "../html.js";
import { page } from "../layout.js";
import { duration, latencyChart, verdictsChart } from "./charts.js";
import type { AgentStats, AgentsReport, Count } from "./stats.js";
import { UNKNOWN_AGENT } from "./read.js";

export interface AgentsPage {
  repository: string;
  report: AgentsReport;
  links: { verdict: (journalId: string) => string; journal: string };
}

export function renderAgentsPage(input: AgentsPage): string {
  const { report } = input;
  const intro = html`<h1>Agents of <span class="break">${input.repository}</span></h1><p class="muted">From this gate's journal alone: ${report.judgments} ${plural(report.judgments, "judgment")} of agents' pull requests${report.weeks.length === 0 ? "" : ` over ${report.weeks.length} ${plural(report.weeks.length, "week")} (${report.weeks[0]} to ${report.weeks.at(-1)})`}, ${report.overrides} ${plural(report.overrides, "override")}. <a href="${input.links.journal}">The journal</a> holds every entry, signed.</p>`;
  if (report.agents.length === 0) {
    return page(`Agents · ${input.repository}`, html`${intro}<p class="note" id="empty">No agent's pull request has been judged in this repository yet. Each verdict the gate signs for one is counted here.</p>`);
  }
  const sections = report.agents.map((a, i) => agentSection(a, i, input));
  return page(`Agents · ${input.repository}`, html`${intro}${summaryTable(report.agents)}${sections}`);
}

function summaryTable(agents: readonly AgentStats[]): Html {
  const rows = agents.map((a) => html`<tr data-agent="${a.agent}"><th scope="row">${agentName(a.agent)}</th><td data-k="prs">${a.pullRequests}</td><td data-k="judgments">${a.judgments}</td><td data-k="candidate-rate">${rate(a.candidateRate)}</td><td data-k="fails">${a.fails}</td><td data-k="unsafe">${a.failsByClass.unsafe}</td><td data-k="incomplete">${a.failsByClass.incomplete}</td><td data-k="retries">${a.retries}</td><td data-k="overrides">${a.overrides}</td><td data-k="median">${ms(a.latency.median)}</td><td data-k="p90">${ms(a.latency.p90)}</td></tr>`);
  return html`<table id="summary"><caption>Every agent at a glance. Time is from the push to the signed verdict.</caption><thead><tr><th scope="col">agent</th><th scope="col">PRs</th><th scope="col">judgments</th><th scope="col">CANDIDATE rate</th><th scope="col">FAILs</th><th scope="col">unsafe</th><th scope="col">incomplete</th><th scope="col">retries used</th><th scope="col">overrides</th><th scope="col">median time</th><th scope="col">p90 time</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function agentSection(a: AgentStats, index: number, input: AgentsPage): Html {
  const last = a.last.map((j) => html`<tr><td><a href="${input.links.verdict(j.id)}"><strong>${j.verdict}</strong>${j.class === null ? "" : ` (${j.class})`}</a>${j.overriddenBy === null ? "" : html` <span class="status missing">overridden by @${j.overriddenBy}</span>`}</td><td>#${j.pull}</td><td><code>${j.head.slice(0, 7)}</code></td><td>${j.failing.length === 0 ? "none" : j.failing.join(", ")}</td><td>${j.time}</td></tr>`);
  const head = html`<h2>${agentName(a.agent)}</h2><p>${a.pullRequests} ${plural(a.pullRequests, "pull request")}, ${a.judgments} ${plural(a.judgments, "judgment")}: ${a.candidates} CANDIDATE (${rate(a.candidateRate)}), ${a.fails} FAIL (${a.failsByClass.unsafe} unsafe, ${a.failsByClass.incomplete} incomplete). ${a.retries} ${plural(a.retries, "retry", "retries")} of the budget used. From push to verdict: median ${ms(a.latency.median)}, p90 ${ms(a.latency.p90)} (${a.latency.measured} timed).</p>`;
  const charts = html`<h3>Judgments per week</h3>${verdictsChart(`verdicts-${index}`, a.agent, a.weeks)}<h3>Time from push to verdict per week (median)</h3>${a.latency.measured === 0 ? html`<p class="muted">No judgment of this agent recorded when it was asked for.</p>` : latencyChart(`latency-${index}`, a.agent, a.weeks)}`;
  const tables = html`<h3>FAILs by claim</h3>${counts(a.failsByClaim, "claim", "FAILs", "No FAIL.", "fails-by-claim")}<h3>Overrides</h3>${counts(a.overridesBy.map((c) => ({ ...c, name: `@${c.name}` })), "given by", "overrides", "No FAIL of this agent was overridden.", "overrides-by")}`;
  return html`<section class="agent" id="agent-${index}" data-agent="${a.agent}">${head}${charts}${tables}<h3>Last judgments</h3><table class="last"><thead><tr><th scope="col">verdict</th><th scope="col">PR</th><th scope="col">head</th><th scope="col">claims that did not hold</th><th scope="col">time</th></tr></thead><tbody>${last}</tbody></table></section>`;
}

function counts(items: readonly Count[], what: string, unit: string, none: string, cls: string): Html {
  if (items.length === 0) return html`<p class="muted ${cls}">${none}</p>`;
  return html`<table class="${cls}"><thead><tr><th scope="col">${what}</th><th scope="col">${unit}</th></tr></thead><tbody>${items.map((c) => html`<tr><td>${c.name}</td><td>${c.count}</td></tr>`)}</tbody></table>`;
}

function agentName(agent: string): string {
  if (agent === UNKNOWN_AGENT) return "agent not recorded (verdicts signed before agents were named)";
  return agent.startsWith("label:") ? `label ${agent.slice("label:".length)}` : `@${agent}`;
}

function rate(value: number | null): string {
  return value === null ? "–" : `${Math.round(value * 100)}%`;
}

function ms(value: number | null): string {
  return value === null ? "–" : duration(value);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}
