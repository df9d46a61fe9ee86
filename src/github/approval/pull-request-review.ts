// pull_request_review submitted / edited / dismissed: decide ranex/approval again for the PR's head.
import type { Context } from "probot";
import { readBasePolicy } from "../pull-request/agents.js";
import { approvalPolicyOf, recheckApproval } from "./approval.js";
import type { AppDeps } from "../deps.js";

export const PULL_REQUEST_REVIEW_EVENTS = [
  "pull_request_review.submitted", "pull_request_review.edited", "pull_request_review.dismissed",
] as const;

export async function onPullRequestReview(context: Context<"pull_request_review">, deps: AppDeps): Promise<void> {
  const authority = deps.mergeAuthority;
  if (authority === undefined) return;
  if (!deps.runner.accept(context.id)) return;
  const { payload } = context;
  const pr = payload.pull_request;
  const repo = { owner: payload.repository.owner.login, repo: payload.repository.name };
  const log = context.log.child({ repository: `${repo.owner}/${repo.repo}`, pr: pr.number, head: pr.head.sha, delivery: context.id, review: payload.review.id });
  const notice = await authority.protection.notice(context.octokit, repo, pr.base.ref);
  await recheckApproval(
    { octokit: context.octokit, log, deps, authority, notice, target: { repo, number: pr.number, head: pr.head.sha, author: pr.user?.login ?? "" } },
    deps.findEntry,
    // The policy of the base the judge used (invariant 7), never the head's.
    async (base) => approvalPolicyOf(await readBasePolicy(context.octokit, repo, base)),
  );
}
