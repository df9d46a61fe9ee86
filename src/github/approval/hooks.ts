// Where a judgment meets merge authority: the decoration notice before ranex/judge completes, then
// ranex/approval and escalation once the verdict is posted. Each does nothing when the app was built
// without merge authority (AppDeps.mergeAuthority), and none of them throws.
import type { Verdict } from "../../kernel/index.js";
import type { BasePolicy } from "../pull-request/agents.js";
import { approvalAfterVerdict, approvalNeutral, approvalPolicyOf, type Settle } from "./approval.js";
import type { AppDeps } from "../deps.js";
import { DEFAULT_RETRIES, escalateIfDue } from "./escalation.js";
import type { GitHubContext, PullTarget } from "../pull-request/judge-pr.js";
import { protectionNotice } from "../protection/protection.js";

/** "This gate is decoration: …" for the base branch, or null when both checks are required. */
export async function decorationNotice(ctx: GitHubContext, deps: AppDeps, target: PullTarget): Promise<string | null> {
  const authority = deps.mergeAuthority;
  if (authority === undefined) return null;
  let branch = target.baseRef;
  if (branch === undefined) {
    try {
      // The payload's target carries the base sha only; the branch name comes from the PR.
      branch = (await ctx.octokit.rest.pulls.get({ ...target.repo, pull_number: target.number })).data.base.ref;
    } catch (err) {
      ctx.log.error(err, "could not read the pull request's base branch");
      return protectionNotice({ kind: "unreadable", branch: "the base branch", reason: "the pull request could not be read to name its base branch" }, target.repo);
    }
  }
  return authority.protection.notice(ctx.octokit, target.repo, branch);
}

function settle(ctx: GitHubContext, deps: AppDeps, target: PullTarget, notice: string | null): Settle | null {
  const authority = deps.mergeAuthority;
  if (authority === undefined) return null;
  return { octokit: ctx.octokit, log: ctx.log, deps, authority, notice, target: { repo: target.repo, number: target.number, head: target.head, author: target.author } };
}

/** After ranex/judge completed with a verdict: ranex/approval on the same head, then escalation. */
export async function afterVerdict(ctx: GitHubContext, deps: AppDeps, target: PullTarget, verdict: Verdict, judgeEntry: string, policy: BasePolicy, notice: string | null): Promise<"escalated" | "not-due" | "already"> {
  const s = settle(ctx, deps, target, notice);
  if (s === null) return "not-due";
  await approvalAfterVerdict(s, verdict, judgeEntry, approvalPolicyOf(policy));
  // A draft is judged so the agent sees where it stands, but its FAILs spend no budget and never escalate.
  if (target.draft) return "not-due";
  const valid = policy.kind === "valid" ? policy.policy : null;
  return escalateIfDue({
    octokit: ctx.octokit, log: ctx.log, clock: deps.clock, authority: s.authority, verdict, judgeEntry,
    target: { repo: target.repo, number: target.number, head: target.head, labels: target.labels },
    policy: { retries: valid?.retries ?? DEFAULT_RETRIES, escalate: valid?.escalate ?? [] },
  });
}

/** A PR that is not an agent's: ranex/approval is neutral too, so requiring it never blocks people. */
export async function neutralApproval(ctx: GitHubContext, deps: AppDeps, target: PullTarget, why: string): Promise<void> {
  const s = settle(ctx, deps, target, null);
  if (s !== null) await approvalNeutral(s, why);
}
