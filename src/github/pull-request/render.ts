// What people read on the check run: title, summary and text. Plain templates over the verdict; the
// snapshot tests in test/github hold the exact wording.
import type { DsseEnvelope } from "../../attest/index.js";
import { withAnchorBlock, type JournalAnchor } from "../../journal/anchor.js";
import type { ClaimResult, RunFact, Verdict } from "../../kernel/index.js";
import { distinctRuns, runLine } from "../../measure/run-report.js";
import { cutTitle, cutToFit, OUTPUT_TEXT_LIMIT } from "../limits.js";

export interface RenderInput {
  verdict: Verdict;
  timings: Record<string, number>;
  envelope: DsseEnvelope;
  journalId: string;
  draft: boolean;
  /** "This gate is decoration: …" (../protection/protection.ts), shown first when the branch does not require the checks. */
  notice?: string | null;
  /**
   * The journal position of this verdict: opens `output.text`, so GitHub keeps it (issue 13,
   * docs/verify.md). `unknown` (a recorded verdict from before anchors were kept) says so there instead.
   */
  anchor?: JournalAnchor | "unknown";
  /** Why this verdict is here: a recorded verdict re-posted, a head judged as another PR's. Shown after the notice. */
  notes?: readonly string[];
  /** The repository's agents page (issue 23), when the app has a public URL. */
  agentsUrl?: string;
}

export interface CheckOutput {
  title: string;
  summary: string;
  text: string;
}

const STATUS_MARK: Record<ClaimResult["status"], string> = { pass: "✅ pass", fail: "❌ fail", missing: "⚠️ missing" };

export function verdictTitle(verdict: Verdict): string {
  const headline = verdict.reasons[0];
  const name = verdict.verdict === "FAIL" && verdict.class !== null ? `FAIL (${verdict.class})` : verdict.verdict;
  if (headline === undefined) return cutTitle(`${name}: every required claim holds; a human approval is still missing`);
  return cutTitle(`${name}: ${headline}`);
}

export function renderOutput(input: RenderInput): CheckOutput {
  const { verdict } = input;
  const main = [
    ...(input.notice === undefined || input.notice === null ? [] : [input.notice]),
    ...(input.notes ?? []).map((note) => `> ${note}`),
    intro(input),
    claimsTable(verdict.claims),
    ...runsSection(distinctRuns(verdict.claims)),
    reviewerSteps(verdict),
    subjectTable(verdict),
    timingsLine(input.timings),
    howToVerify(verdict, input.journalId),
    ...(input.agentsUrl === undefined ? [] : [`How this repository's agents are doing, from the journal: [agents page](${input.agentsUrl})`]),
  ].join("\n\n");
  return { title: verdictTitle(verdict), summary: fitSummary(main, envelopeBlock(input.envelope), input.journalId), text: withAnchorBlock(input.anchor, OUTPUT_TEXT_LIMIT, (room) => detailsText(verdict, input.journalId, room)) };
}

function intro({ verdict, draft }: RenderInput): string {
  const lines = [`## ${verdict.verdict === "CANDIDATE" ? "✅" : "❌"} ${verdict.verdict}${verdict.class === null ? "" : ` (${verdict.class})`}`];
  if (draft) lines.push("This pull request is a **draft**: judged all the same, so the agent sees where it stands.");
  if (verdict.reasons.length > 0) lines.push(verdict.reasons.map((r) => `- ${r}`).join("\n"));
  return lines.join("\n\n");
}

function claimsTable(claims: readonly ClaimResult[]): string {
  const rows = claims.map((c) => `| \`${c.name}\` | ${STATUS_MARK[c.status]} | ${cell(c.reason)} |`);
  return ["### Claims", "", "| claim | status | reason |", "|---|---|---|", ...rows].join("\n");
}

/**
 * Each run the claims stood on, and the last lines of output of every run that did not go as a run
 * should: shown in the summary, never folded away, because that is what decides the verdict.
 */
function runsSection(runs: readonly RunFact[]): string[] {
  if (runs.length === 0) return [];
  const rows = runs.map((r) => `| \`${cell(r.run)}\` | ${r.ok ? "✅" : "❌"} | ${cell(runLine(r))} |`);
  const tails = runs.filter((r) => !r.ok).map((r) => r.outputTail === ""
    ? `**${cell(r.run)}** printed nothing.`
    : `**${cell(r.run)}**, last lines of output:\n\n${fenced(r.outputTail)}`);
  return [["### Runs", "", "| run | | exit · stages · report |", "|---|---|---|", ...rows, ...(tails.length > 0 ? ["", ...tails] : [])].join("\n")];
}

/** A code block no backtick run inside the text can close early. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

function reviewerSteps(verdict: Verdict): string {
  const head = verdict.subject.head.slice(0, 7);
  const step = verdict.verdict === "FAIL"
    ? `Nothing to approve yet: the failing or missing claims above must be fixed and pushed. Re-running without a change judges the same commit again.`
    : `CANDIDATE is not a pass. A person who did not write this change (not the agent, its operator, or any commit author) must review and approve commit \`${head}\`; \`ranex/approval\` turns green then.`;
  return `### What a reviewer must still do\n\n${step}`;
}

function subjectTable(verdict: Verdict): string {
  const s = verdict.subject;
  const rows: [string, string | null][] = [
    ["repository", s.repository], ["base", s.base], ["head", s.head], ...mergeRows(s), ["base tree", s.baseTree], ["head tree", s.headTree],
    ["policy", s.policy], ["task", s.task], ["sandbox", s.sandbox],
    ...(s.sealed === undefined ? [] : [["sealed tests", s.sealed] as [string, string]]), ["subject digest", s.digest],
  ];
  return ["### Subject", "", "| | |", "|---|---|", ...rows.map(([k, v]) => `| ${k} | ${v === null ? "none" : `\`${cell(v)}\``} |`)].join("\n");
}

/** Issue 12: the diff starts at the merge base; the tests measured head merged into base (null: it conflicts). */
function mergeRows(s: Verdict["subject"]): [string, string | null][] {
  if (s.mergeBase === undefined) return [];
  const merged = s.mergedTree === null ? "none: the merge conflicts" : s.mergedTree ?? null;
  return [["merge base (diff from)", s.mergeBase], ["merged tree (tests ran on)", merged]];
}

function timingsLine(timings: Record<string, number>): string {
  const parts = Object.entries(timings).map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`);
  return `### Timings\n\n${parts.length === 0 ? "none recorded" : parts.join(" · ")}`;
}

function howToVerify(verdict: Verdict, journalId: string): string {
  return [
    "### How to verify",
    "",
    "Save the envelope below as `envelope.json`, then, with the gate's public key (`ranex pubkey`):",
    "",
    "```sh",
    `ranex verify envelope.json --public-key ranex.pub.pem --commit ${verdict.subject.head}`,
    "```",
    "",
    `The same envelope is journal entry \`${journalId}\`; \`ranex journal verify\` checks the whole chain.`,
  ].join("\n");
}

function envelopeBlock(envelope: DsseEnvelope): string {
  return ["<details><summary>Signed envelope (DSSE)</summary>", "", "```json", JSON.stringify(envelope, null, 2), "```", "", "</details>"].join("\n");
}

/** The summary keeps the envelope whole or, when it alone would crowd everything out, points to the journal. */
function fitSummary(main: string, envelope: string, journalId: string): string {
  let tail = envelope;
  if (main.length + tail.length + 2 > OUTPUT_TEXT_LIMIT && tail.length > OUTPUT_TEXT_LIMIT / 2) {
    tail = `_The signed envelope is too large to show here: it is journal entry \`${journalId}\`._`;
  }
  const room = OUTPUT_TEXT_LIMIT - tail.length - 2;
  const head = cutToFit(main, room, (n) => `_… ${n} characters cut to stay within GitHub's limit; the full verdict is journal entry \`${journalId}\`._`);
  return `${head}\n\n${tail}`;
}

/** Every finding of every claim that is not a pass. */
function detailsText(verdict: Verdict, journalId: string, limit: number): string {
  const sections = verdict.claims.filter((c) => c.status !== "pass" && c.details.length > 0).map((c) => {
    const lines = c.details.map((d) => `- ${d.path === undefined ? "" : `\`${d.path}${d.line === undefined ? "" : `:${d.line}`}\` `}${d.message}`);
    return [`### \`${c.name}\`: ${c.status}`, "", ...lines].join("\n");
  });
  const text = sections.length === 0 ? "No findings." : sections.join("\n\n");
  return cutToFit(text, limit, (n) => `_… ${n} characters of findings cut to stay within GitHub's limit; the full list is journal entry \`${journalId}\`._`);
}

/** Table cells: one line, no pipe that would end the cell. */
function cell(text: string): string {
  return text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
}
