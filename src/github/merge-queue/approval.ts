// `ranex/approval` on a merge group's commit: it succeeds only when every agent pull request in the
// group has a qualifying approval of its own head. Each pull request is decided exactly as its own
// ranex/approval is (../approval/approval.ts: its CANDIDATE read back from the journal, the kernel's
// rules over its reviews), and each approval is signed and journalled again for this group.
import type { Logger } from "probot";
import { candidateFromJournal, decide } from "../approval/approval.js";
import { renderApproval, type ApprovalOutput, type ApprovalState } from "../approval/check.js";
import { renderAnchorBlock } from "../../journal/anchor.js";
import type { MergeAuthority } from "../approval/deps.js";
import type { ApprovalPolicy } from "../../kernel/approval.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import type { AppDeps } from "../deps.js";
import { cutTitle, cutToFit, OUTPUT_TEXT_LIMIT } from "../limits.js";
import { JUDGE_CHECK } from "../protection/protection.js";
import type { GroupPull } from "./group.js";

export interface AgentPull extends GroupPull {
  /** Which rule of the base's `agents` marks it as an agent's (or why it counts as one). */
  rule: string;
}

export interface PullApproval {
  pull: AgentPull;
  state: ApprovalState;
}

export interface ApprovalContext {
  octokit: GitHub;
  log: Logger;
  deps: Pick<AppDeps, "clock" | "findEntry">;
  authority: MergeAuthority;
  repo: RepoRef;
}

/** Decides each agent pull request of the group; an error deciding one is that one's state, not a throw. */
export async function decidePulls(ctx: ApprovalContext, pulls: readonly AgentPull[], policy: ApprovalPolicy): Promise<PullApproval[]> {
  const out: PullApproval[] = [];
  for (const pull of pulls) {
    const log = ctx.log.child({ pr: pull.number, head: pull.head });
    let state: ApprovalState;
    try {
      state = await decidePull(ctx, log, pull, policy);
    } catch (err) {
      log.error(err, "deciding the approval of a pull request in the merge group failed");
      state = { kind: "error", head: pull.head, reason: err instanceof Error ? err.message : String(err) };
    }
    out.push({ pull, state });
  }
  return out;
}

async function decidePull(ctx: ApprovalContext, log: Logger, pull: AgentPull, policy: ApprovalPolicy): Promise<ApprovalState> {
  const runs = await ctx.octokit.paginate(ctx.octokit.rest.checks.listForRef, { ...ctx.repo, ref: pull.head, check_name: JUDGE_CHECK, filter: "latest", per_page: 100 });
  const judged = runs.find((r) => r.status === "completed" && (ctx.authority.appId === null || r.app?.id === ctx.authority.appId));
  if (judged === undefined) throw new Error(`\`${JUDGE_CHECK}\` has no verdict on the head \`${pull.head.slice(0, 7)}\` of #${pull.number}`);
  if (judged.conclusion !== "success") return { kind: "judge-fail", head: pull.head, judgeEntry: judged.external_id || null };
  const candidate = await candidateFromJournal(ctx.deps.findEntry, judged.external_id ?? null, pull.head);
  const settle = { octokit: ctx.octokit, log, deps: ctx.deps, authority: ctx.authority, notice: null, target: { repo: ctx.repo, number: pull.number, head: pull.head, author: pull.author } };
  const binding = { pull: pull.number, base: candidate.verdict.subject.base };
  const state = await decide(settle, candidate.verdict, candidate.entry, binding, policy, null, candidate.override);
  // decide() answers null only when an existing check already says the same; none is passed here.
  if (state === null) throw new Error(`no decision for #${pull.number}`);
  return state;
}

export function groupApprovalOutput(decided: readonly PullApproval[]): ApprovalOutput {
  const anchored = journalled(decided);
  return anchored === null ? groupSummary(decided) : { ...groupSummary(decided, anchored.note), ...anchored.fields };
}

type Approved = Extract<ApprovalState, { kind: "approved" }>;

/**
 * The approvals journalled for this group make its ranex/approval a journal record too (issue 13).
 * A check run names one entry (external_id) and one anchor, so it names the latest of them: each
 * entry's hash covers every entry before it, so that anchor pins the others as well.
 */
function journalled(decided: readonly PullApproval[]): { fields: Pick<ApprovalOutput, "externalId" | "text">; note: string } | null {
  const approved = decided.map((d) => d.state).filter((s): s is Approved => s.kind === "approved");
  const latest = approved.reduce<Approved | undefined>((a, b) => (a === undefined || (b.anchor?.entry.sequence ?? 0) >= (a.anchor?.entry.sequence ?? 0) ? b : a), undefined);
  if (latest === undefined) return null;
  const note = approved.length === 1
    ? `This check run is journal entry \`${latest.journalId}\`, the approval journalled for this group.`
    : `This check run names journal entry \`${latest.journalId}\`, the latest of the ${approved.length} approvals journalled for this group; its anchor pins the others, since each entry's hash covers every entry before it.`;
  return { fields: { externalId: latest.journalId, ...(latest.anchor === undefined ? {} : { text: renderAnchorBlock(latest.anchor) }) }, note };
}

function groupSummary(decided: readonly PullApproval[], journalNote?: string): ApprovalOutput {
  const missing = decided.filter((d) => d.state.kind !== "approved");
  const sections = decided.map(({ pull, state }) => [
    `### #${pull.number} \`${pull.head.slice(0, 7)}\` (${pull.rule})`,
    renderApproval(state, null).summary,
  ].join("\n\n"));
  const fit = (text: string) => cutToFit(text, OUTPUT_TEXT_LIMIT, (n) => `_… ${n} characters cut to stay within GitHub's limit._`);
  if (missing.length === 0) {
    const who = decided.map(({ pull, state }) => `#${pull.number} by ${state.kind === "approved" ? state.decision.qualifying.map((q) => `@${q.login}`).join(", ") : "?"}`);
    return {
      conclusion: "success", title: cutTitle(`approved: ${who.join("; ")}`),
      summary: fit([
        "## ✅ Every agent pull request in this merge group is approved",
        "Each approval is of the pull request's own head, which `ranex/judge` found CANDIDATE; each is signed and journalled again for this group.",
        ...(journalNote === undefined ? [] : [journalNote]),
        ...sections,
      ].join("\n\n")),
    };
  }
  const names = missing.map((m) => `#${m.pull.number}`).join(", ");
  return {
    conclusion: "failure",
    title: cutTitle(`not approved: ${names} ${missing.length === 1 ? "has" : "have"} no qualifying approval of ${missing.length === 1 ? "its" : "their"} head`),
    summary: fit([
      `## ❌ Not every agent pull request in this merge group is approved: ${names}`,
      "A merge group lands every pull request in it, so each agent pull request needs an independent approval of its own head before the group may merge. Approve the pull request, then queue it again.",
      ...(journalNote === undefined ? [] : [journalNote]),
      ...sections,
    ].join("\n\n")),
  };
}

/** A group without an agent pull request: neutral, like a person's pull request. */
export function neutralGroupOutput(why: string): ApprovalOutput {
  return {
    conclusion: "neutral", title: "no agent pull request in this merge group",
    summary: `${why}\n\nNo independent approval is needed beyond the repository's own rules; this check is neutral so requiring it never blocks people.`,
  };
}
