// One judgment of one pull request head, from webhook to completed check run. Every path ends in a
// completed check run: a verdict, `neutral` (not ours, superseded), or `failure` with the error.
import type { Logger } from "probot";
import { annotationsOf } from "./annotations.js";
import { agentRule, readBasePolicy, type BasePolicy } from "./agents.js";
import { afterVerdict, decorationNotice, neutralApproval } from "../approval/hooks.js";
import { closeCheck, completeCheck, createQueuedCheck, markInProgress, type GitHub, type RepoRef } from "../check-runs.js";
import { detailsUrl, type AppDeps } from "../deps.js";
import { Superseded } from "./jobs.js";
import { renderOutput } from "./render.js";
import { taskFromBody } from "./task-line.js";
import { fetchHeader, installationToken } from "../token.js";

export interface PullTarget {
  repo: RepoRef;
  number: number;
  head: string;
  base: string;
  headRef: string;
  /** The base branch's name, from the payload (the branch protection is read for it). */
  baseRef?: string;
  /** From the payload: github.com or a GHES host, or a local path in tests. */
  cloneUrl: string;
  author: string;
  labels: string[];
  draft: boolean;
  body: string | null;
}

export interface GitHubContext {
  octokit: GitHub;
  log: Logger;
}

/**
 * Creates the `queued` check run at once, then decides whether to judge, then queues the job. The
 * caller has already claimed the delivery id (deps.runner.accept), so a redelivery never gets here.
 */
export async function judgePullRequest(ctx: GitHubContext, deps: AppDeps, target: PullTarget, deliveryId: string): Promise<void> {
  const log = ctx.log.child({ repository: fullName(target.repo), pr: target.number, head: target.head, delivery: deliveryId });
  const checkRunId = await createQueuedCheck(ctx.octokit, target.repo, target.head);
  await failClosed(ctx.octokit, deps, log, target.repo, checkRunId, async () => {
    const policy = await readBasePolicy(ctx.octokit, target.repo, target.base);
    if (policy.kind === "absent") {
      return notAnAgent(ctx, deps, target, checkRunId, `The base commit \`${target.base.slice(0, 7)}\` has no \`.github/ranex.yml\`, so no author, label or branch is marked as an agent's.`);
    }
    if (policy.kind === "valid") {
      const rule = agentRule(policy.policy.agents, { author: target.author, labels: target.labels, headRef: target.headRef });
      if (rule === null) {
        return notAnAgent(ctx, deps, target, checkRunId, `Neither the author \`${target.author}\`, the labels, nor the branch \`${target.headRef}\` match \`agents\` in the base's \`.github/ranex.yml\`.`);
      }
      log.info({ rule }, "agent pull request: judging");
    }
    deps.runner.submit({
      key: `${fullName(target.repo)}#${target.number}`, head: target.head,
      run: (signal) => failClosed(ctx.octokit, deps, log, target.repo, checkRunId, () => runJudgment(ctx, deps, target, checkRunId, signal, policy)),
    });
  });
}

async function runJudgment(ctx: GitHubContext, deps: AppDeps, target: PullTarget, checkRunId: number, signal: AbortSignal, policy: BasePolicy): Promise<void> {
  if (signal.aborted) return superseded(ctx.octokit, deps, target, checkRunId, signal);
  await markInProgress(ctx.octokit, target.repo, checkRunId, deps.clock());
  const token = await installationToken(ctx.octokit);
  const ref = `refs/pull/${target.number}/head`;
  let judgment;
  try {
    judgment = await deps.judge({
      source: target.cloneUrl, base: target.base, head: target.head, task: taskFromBody(target.body),
      dataDir: deps.dataDir, repository: fullName(target.repo), gitConfig: [fetchHeader(token)], refs: [ref],
    }, signal);
  } catch (err) {
    // A judge cut short by a newer head is superseded, not broken.
    if (signal.aborted) return superseded(ctx.octokit, deps, target, checkRunId, signal);
    throw withoutSecret(err, token);
  }
  if (signal.aborted) return superseded(ctx.octokit, deps, target, checkRunId, signal);
  const recorded = await deps.record(judgment, { repository: fullName(target.repo), ref, time: deps.clock().toISOString() });
  // Merge authority (issue 6): the decoration notice tops both summaries; ranex/approval follows the verdict.
  const notice = await decorationNotice(ctx, deps, target);
  const output = renderOutput({ verdict: judgment.verdict, timings: judgment.timings, envelope: recorded.envelope, journalId: recorded.journalId, draft: target.draft, notice, anchor: recorded.anchor });
  await completeCheck(ctx.octokit, target.repo, checkRunId, {
    conclusion: judgment.verdict.verdict === "CANDIDATE" ? "success" : "failure",
    ...output, annotations: annotationsOf(judgment.verdict),
    externalId: recorded.journalId, detailsUrl: detailsUrl(deps, recorded.journalId), completedAt: deps.clock(),
  });
  await afterVerdict(ctx, deps, target, judgment.verdict, recorded.journalId, policy, notice);
}

async function notAnAgent(ctx: GitHubContext, deps: AppDeps, target: PullTarget, checkRunId: number, why: string): Promise<void> {
  await closeCheck(ctx.octokit, target.repo, checkRunId, "neutral", "not an agent PR",
    `${why}\n\nRanex Gate judges only agents' pull requests; this check is neutral so requiring it never blocks people.`, deps.clock());
  await neutralApproval(ctx, deps, target, why);
}

function superseded(octokit: GitHub, deps: AppDeps, target: PullTarget, checkRunId: number, signal: AbortSignal): Promise<void> {
  const by = signal.reason instanceof Superseded ? signal.reason.by : "a newer request";
  const sha7 = by.slice(0, 7);
  return closeCheck(octokit, target.repo, checkRunId, "neutral", `superseded by ${sha7}`,
    `A newer request for this pull request (head \`${sha7}\`) arrived while \`${target.head.slice(0, 7)}\` waited or was being judged, so this judgment was cancelled. See the check run on \`${sha7}\`.`, deps.clock());
}

/**
 * Runs `work`; if it throws, the check run is completed `failure` with the reason, so nothing is left
 * queued or in progress. Only a failure to post that completion itself is logged and swallowed.
 */
export async function failClosed(octokit: GitHub, deps: AppDeps, log: Logger, repo: RepoRef, checkRunId: number, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    log.error(err, "judging failed; completing the check run as failure");
    try {
      await closeCheck(octokit, repo, checkRunId, "failure", `error: ${reason}`,
        `Ranex Gate could not finish judging this head, so it fails closed.\n\n**Reason:** ${reason}\n\nA person with write access can comment \`/ranex rejudge\` after fixing the cause.`, deps.clock());
    } catch (postErr) {
      log.error(postErr, "could not complete the check run after an error");
    }
  }
}

/** A git error may echo its command line: the token must not reach the check run or the logs. */
function withoutSecret(err: unknown, token: string): Error {
  const secrets = [token, Buffer.from(`x-access-token:${token}`, "utf8").toString("base64")];
  let message = err instanceof Error ? err.message : String(err);
  for (const secret of secrets) message = message.split(secret).join("***");
  return new Error(message);
}

export function fullName(repo: RepoRef): string {
  return `${repo.owner}/${repo.repo}`;
}
