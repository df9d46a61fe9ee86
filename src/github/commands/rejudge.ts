// A re-judgment asked for by a person (a `/ranex rejudge` comment or the check's Re-run button):
// authorized, journalled with who asked, then judged like a new head.
import type { Logger } from "probot";
import { mayRejudge, type Requester } from "./authorize.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import type { AppDeps } from "../deps.js";
import { fullName, judgePullRequest, type PullTarget } from "../pull-request/judge-pr.js";
import { targetOf } from "../pull-request/events.js";

export interface RejudgeAsk {
  octokit: GitHub;
  log: Logger;
  repo: RepoRef;
  number: number;
  requester: Requester;
  via: "comment" | "check_run";
  deliveryId: string;
  /** Runs once the request is authorized, before the judgment (the 👀 reaction on a comment). */
  onAllowed?: () => Promise<void>;
}

/** Returns the PR as it is now, or null when the request was refused (a reply says why). */
export async function rejudge(ask: RejudgeAsk, deps: AppDeps): Promise<PullTarget | null> {
  const target = await currentPull(ask.octokit, ask.repo, ask.number);
  const authorization = await mayRejudge(ask.octokit, ask.repo, ask.requester, { author: target.author, base: target.base });
  if (!authorization.allowed) {
    ask.log.info({ requester: ask.requester.login, reason: authorization.reason }, "re-judgment refused");
    await reply(ask.octokit, ask.repo, ask.number, `Not re-judged. ${authorization.reason}`);
    return null;
  }
  await ask.onAllowed?.();
  await deps.recordRejudge({
    repository: fullName(ask.repo), pullRequest: ask.number, head: target.head,
    requestedBy: ask.requester.login, via: ask.via, time: deps.clock().toISOString(),
  });
  // An authorized re-judgment is the one way to measure the same inputs again.
  await judgePullRequest({ octokit: ask.octokit, log: ask.log }, deps, target, ask.deliveryId, { fresh: true });
  return target;
}

export async function currentPull(octokit: GitHub, repo: RepoRef, number: number): Promise<PullTarget> {
  const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: number });
  return targetOf(data, data.base.repo);
}

export async function reply(octokit: GitHub, repo: RepoRef, number: number, body: string): Promise<void> {
  await octokit.rest.issues.createComment({ ...repo, issue_number: number, body });
}
