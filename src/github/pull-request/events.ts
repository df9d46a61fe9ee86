// pull_request webhooks: which actions mean "a head to judge", translated into one judgment.
import type { Context } from "probot";
import type { AppDeps } from "../deps.js";
import { judgePullRequest, type PullTarget } from "./judge-pr.js";
import { taskFromBody } from "./task-line.js";

export const PULL_REQUEST_EVENTS = [
  "pull_request.opened", "pull_request.reopened", "pull_request.synchronize", "pull_request.ready_for_review",
  "pull_request.edited", "pull_request.labeled",
] as const;

type PullRequestContext = Context<"pull_request">;

export async function onPullRequest(context: PullRequestContext, deps: AppDeps): Promise<void> {
  const { payload } = context;
  // An edit matters only when it changed the task the body selects; other edits are words, not evidence.
  if (payload.action === "edited") {
    const before = payload.changes.body?.from;
    if (before === undefined || taskFromBody(before) === taskFromBody(payload.pull_request.body)) return;
  }
  if (!deps.runner.accept(context.id)) {
    context.log.info({ delivery: context.id }, "delivery already handled: not judged again");
    return;
  }
  await judgePullRequest({ octokit: context.octokit, log: context.log }, deps, targetOf(payload.pull_request, payload.repository), context.id);
}

interface PullPayload {
  number: number;
  draft?: boolean;
  body: string | null;
  user: { login: string } | null;
  labels?: { name: string }[];
  head: { sha: string; ref: string };
  base: { sha: string; ref?: string };
}

interface RepositoryPayload {
  name: string;
  owner: { login: string };
  clone_url: string;
}

export function targetOf(pr: PullPayload, repository: RepositoryPayload): PullTarget {
  return {
    repo: { owner: repository.owner.login, repo: repository.name },
    number: pr.number, head: pr.head.sha, base: pr.base.sha, headRef: pr.head.ref,
    ...(pr.base.ref === undefined ? {} : { baseRef: pr.base.ref }),
    cloneUrl: repository.clone_url, author: pr.user?.login ?? "", labels: (pr.labels ?? []).map((l) => l.name),
    draft: pr.draft === true, body: pr.body,
  };
}
