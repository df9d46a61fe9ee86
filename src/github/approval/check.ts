// The `ranex/approval` check run: what it says, and posting it without repeating itself. `failure`
// while the judge says FAIL, `action_required` until enough independent humans approve the judged
// head, `success` after (signed and journalled), `neutral` for a PR that is not an agent's.
import type { DsseEnvelope } from "../../attest/index.js";
import { renderAnchorBlock, type JournalAnchor } from "../../journal/anchor.js";
import type { ApprovalDecision } from "../../kernel/approval.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import { cutTitle, cutToFit, OUTPUT_TEXT_LIMIT } from "../limits.js";
import { APPROVAL_CHECK } from "../protection/protection.js";

/** The judge's FAIL on this head was overridden (issue 23): by whom, and the override's journal entry. */
export interface OverrideNote {
  by: string;
  journalId: string;
}

export type ApprovalState =
  | { kind: "neutral"; why: string }
  | { kind: "judge-fail"; head: string; judgeEntry: string | null }
  | { kind: "waiting"; head: string; judgeEntry: string; decision: ApprovalDecision; teams: readonly string[]; override?: OverrideNote }
  | { kind: "approved"; head: string; judgeEntry: string; decision: ApprovalDecision; journalId: string; envelope: DsseEnvelope; anchor?: JournalAnchor; override?: OverrideNote }
  | { kind: "blocked"; head: string; judgeEntry: string; decision: ApprovalDecision; reasons: readonly string[]; override?: OverrideNote }
  | { kind: "error"; head: string; reason: string };

export type ApprovalConclusion = "success" | "failure" | "neutral" | "action_required";

export interface ApprovalOutput {
  conclusion: ApprovalConclusion;
  title: string;
  summary: string;
  /** The journal anchor block (issue 13), when the check run is a journal entry of its own. */
  text?: string;
  externalId?: string;
}

/** The approval check run already on a head, as the check-runs list returns it. */
export interface ExistingCheck {
  id: number;
  conclusion: string | null;
  title: string | null;
  summary: string | null;
}

export function approvedTitle(decision: ApprovalDecision): string {
  return cutTitle(`approved by ${decision.qualifying.map((q) => `@${q.login}`).join(", ")} on ${decision.head.slice(0, 7)}`);
}

export function renderApproval(state: ApprovalState, notice: string | null): ApprovalOutput {
  const top = notice === null ? "" : `${notice}\n\n`;
  const fit = (text: string) => cutToFit(`${top}${text}`, OUTPUT_TEXT_LIMIT, (n) => `_… ${n} characters cut to stay within GitHub's limit._`);
  switch (state.kind) {
    case "neutral":
      return { conclusion: "neutral", title: "not an agent PR", summary: fit(`${state.why}\n\nNo independent approval is needed beyond the repository's own rules; this check is neutral so requiring it never blocks people.`) };
    case "judge-fail":
      return {
        conclusion: "failure", title: "the judge says FAIL",
        summary: fit(`## ❌ The judge says FAIL\n\n\`ranex/judge\` found \`${state.head.slice(0, 7)}\` FAIL${state.judgeEntry === null ? "" : ` (journal entry \`${state.judgeEntry}\`)`}, so there is nothing to approve: an approval counts only for a head the judge found CANDIDATE. Fix what ranex/judge lists and push.`),
      };
    case "error":
      return {
        conclusion: "failure", title: cutTitle(`error: ${state.reason}`),
        summary: fit(`Ranex Gate could not decide on an approval of \`${state.head.slice(0, 7)}\`, so it fails closed.\n\n**Reason:** ${state.reason}\n\nA new review, or \`/ranex rejudge\` from a person with write access, decides again.`),
      };
    case "blocked":
      return { conclusion: "failure", title: cutTitle(`no approval can count: ${state.reasons[0] ?? ""}`), summary: fit(blockedText(state)) };
    case "waiting":
      return { conclusion: "action_required", title: `waiting for an independent approval of ${state.head.slice(0, 7)}${state.override === undefined ? "" : " (judge overridden)"}`, summary: fit(waitingText(state)) };
    case "approved":
      return { conclusion: "success", title: approvedTitle(state.decision), summary: fit(approvedText(state)), externalId: state.journalId,
        ...(state.anchor === undefined ? {} : { text: renderAnchorBlock(state.anchor) }) };
  }
}

function waitingText(state: Extract<ApprovalState, { kind: "waiting" }>): string {
  const { decision } = state;
  const sha7 = state.head.slice(0, 7);
  const who = state.teams.length === 0 ? "write, maintain or admin permission" : `write, maintain or admin permission, or membership in ${state.teams.join(", ")}`;
  const reviews = `${decision.needed === 1 ? "one approving review" : `${decision.needed} approving reviews`} of exactly this commit must come from people with ${who} who had no hand in the change. ${decision.qualifying.length} of ${decision.needed} so far${decision.qualifying.length === 0 ? "" : ` (${decision.qualifying.map((q) => `@${q.login}`).join(", ")})`}.`;
  const parts = [
    `## ⏳ Waiting for an independent approval of \`${sha7}\``,
    state.override === undefined
      ? `\`ranex/judge\` found every required claim holding on \`${sha7}\` (CANDIDATE, journal entry \`${state.judgeEntry}\`). CANDIDATE is not a pass: ${reviews}`
      : `${overrideLine(state.override, state.judgeEntry)} An override is not an approval: ${reviews}`,
  ];
  if (decision.refused.length > 0) {
    parts.push(["### Approvals that do not count", "", ...decision.refused.map((r) => `- @${r.login} (review ${r.reviewId}): ${r.reasons.join("; ")}`)].join("\n"));
  }
  if (decision.ineligible.length > 0) {
    parts.push(["### Who may not approve this change", "", ...decision.ineligible.map((i) => `- ${i.who}: ${i.reason}`)].join("\n"));
  }
  if (decision.baseMerges.length > 0) {
    parts.push(`Merges that only bring in the base (GitHub's Update branch) make nobody a hand in the change: ${decision.baseMerges.map((m) => `\`${m.slice(0, 7)}\``).join(", ")}.`);
  }
  parts.push("A new push starts over: an approval is bound to the commit it was given on.");
  return parts.join("\n\n");
}

function overrideLine(override: OverrideNote, judgeEntry: string): string {
  return `\`ranex/judge\` found this commit FAIL (journal entry \`${judgeEntry}\`), and @${override.by} overrode it (journal entry \`${override.journalId}\`).`;
}

function blockedText(state: Extract<ApprovalState, { kind: "blocked" }>): string {
  const sha7 = state.head.slice(0, 7);
  const parts = [
    `## ⛔ No approval of \`${sha7}\` can count yet`,
    state.override === undefined
      ? `\`ranex/judge\` found \`${sha7}\` CANDIDATE (journal entry \`${state.judgeEntry}\`), but Ranex Gate cannot tie an approval to it safely, so it fails closed:`
      : `${overrideLine(state.override, state.judgeEntry)} Ranex Gate cannot tie an approval to it safely, so it fails closed:`,
    state.reasons.map((r) => `- ${r}`).join("\n"),
  ];
  if (state.decision.ineligible.length > 0) {
    parts.push(["### Who may not approve this change", "", ...state.decision.ineligible.map((i) => `- ${i.who}: ${i.reason}`)].join("\n"));
  }
  return parts.join("\n\n");
}

function approvedText(state: Extract<ApprovalState, { kind: "approved" }>): string {
  const sha7 = state.head.slice(0, 7);
  const approvers = state.decision.qualifying.map((q) => `@${q.login} (review ${q.reviewId})`).join(", ");
  return [
    `## ✅ Approved by ${approvers}`,
    state.override === undefined
      ? `An independent person approved exactly \`${sha7}\`, which \`ranex/judge\` found CANDIDATE (journal entry \`${state.judgeEntry}\`). The decision is signed and is journal entry \`${state.journalId}\`; \`ranex journal verify\` checks it with the chain.`
      : `An independent person approved exactly \`${sha7}\`. ${overrideLine(state.override, state.judgeEntry)} The approval is signed beside the override and is journal entry \`${state.journalId}\`; \`ranex journal verify\` checks it with the chain.`,
    "A new push starts over: this approval counts only for this commit.",
    ["<details><summary>Signed envelope (DSSE)</summary>", "", "```json", JSON.stringify(state.envelope, null, 2), "```", "", "</details>"].join("\n"),
  ].join("\n\n");
}

/** Same conclusion, title and summary as what is already posted: nothing to write. */
export function unchanged(existing: ExistingCheck | null, output: ApprovalOutput): boolean {
  return existing !== null && existing.conclusion === output.conclusion && existing.title === output.title && existing.summary === output.summary;
}

/** Posts the approval check: updates the head's existing one, or creates it completed. */
export async function postApproval(octokit: GitHub, repo: RepoRef, head: string, output: ApprovalOutput, existing: ExistingCheck | null, at: Date): Promise<void> {
  const fields = {
    status: "completed" as const, conclusion: output.conclusion, completed_at: at.toISOString().replace(/\.\d{3}Z$/, "Z"),
    output: { title: output.title, summary: output.summary, ...(output.text === undefined ? {} : { text: output.text }) },
    ...(output.externalId === undefined ? {} : { external_id: output.externalId }),
  };
  if (existing === null) await octokit.rest.checks.create({ ...repo, name: APPROVAL_CHECK, head_sha: head, ...fields });
  else await octokit.rest.checks.update({ ...repo, check_run_id: existing.id, ...fields });
}
