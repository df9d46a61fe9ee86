// One judgment of one pull request head, from webhook to completed check run. Every path ends in a
// completed check run: a verdict, `neutral` (only: not an agent's PR, and no open agent PR has this
// head), `cancelled` (superseded, closed) or `failure` with the error.
import type { Logger } from "probot";
import { annotationsOf } from "./annotations.js";
import { agentIdentity, readBasePolicy, type BasePolicy } from "./agents.js";
import { afterVerdict, decorationNotice, neutralApproval } from "../approval/hooks.js";
import { ESCALATED_LABEL } from "../approval/escalation.js";
import type { Conclusion, GitHub } from "../check-runs.js";
import { JudgeCheck } from "./judge-check.js";
import { WritesRefused } from "../write-retry.js";
import { agentPullWithHead, classify, honouredLabels } from "./classify.js";
import { agentsUrl, detailsUrl, type AppDeps } from "../deps.js";
import { Closed, Superseded } from "./jobs.js";
import { postOverridden } from "./overridden.js";
import { renderOutput } from "./render.js";
import { PullRequestStore, type RecordedJudgment } from "./store.js";
import { fullName, pullKey, type PullTarget } from "./target.js";
import { taskFromBody } from "./task-line.js";
import { fetchHeader, installationToken } from "../token.js";

export { fullName, type PullTarget };

export interface GitHubContext {
  octokit: GitHub;
  log: Logger;
}

export interface JudgeOptions {
  /**
   * Measure again even when these inputs (base tip, head, policy, task) already have a signed
   * verdict: only an authorized `/ranex rejudge`, Re-run or Re-run all asks for this.
   */
  fresh?: boolean;
}

export function pullRequestStore(deps: Pick<AppDeps, "dataDir">): PullRequestStore {
  return new PullRequestStore(deps.dataDir);
}

/**
 * Creates the `queued` check run at once, then decides whether to judge, then queues the job. The
 * caller has already claimed the delivery id (deps.runner.accept), so a redelivery never gets here.
 */
export async function judgePullRequest(ctx: GitHubContext, deps: AppDeps, given: PullTarget, deliveryId: string, options: JudgeOptions = {}): Promise<void> {
  const log = ctx.log.child({ repository: fullName(given.repo), pr: given.number, head: given.head, delivery: deliveryId });
  if (given.state === "closed" || await deps.runner.isClosed(pullKey(given.repo, given.number))) {
    log.info("the pull request is closed: nothing more is posted on it");
    return;
  }
  const store = pullRequestStore(deps);
  const check = new JudgeCheck(ctx.octokit, given.repo, given.head, log);
  const queuedAt = deps.clock().toISOString();
  // Shown at once when the job may wait; a job that starts at once is created in progress instead.
  if (!deps.runner.startsAtOnce) await check.queue();
  await failClosed(check, deps, log, async () => {
    let target: PullTarget = { ...given, labels: honouredLabels(store, given) };
    let policy = await readBasePolicy(ctx.octokit, target.repo, target.base);
    const own = classify(store, target, policy);
    let notes: string[] = [];
    if (own.agent) {
      log.info({ rule: own.rule }, "agent pull request: judging");
      if (own.recorded) notes = [`Judged as an agent's pull request although nothing in the base's policy marks it now: ${own.rule}.`];
    } else {
      // The check lands on the commit, not on this PR: if an agent PR has the same head, this head
      // is that PR's, and it is judged as that PR, under the policy of that PR's base.
      const other = await agentPullWithHead(ctx.octokit, store, target);
      if (other === null) return notAnAgent(ctx, deps, target, check, own.why);
      log.info({ agentPull: other.target.number, rule: other.rule }, "this head is an agent pull request's head: judged as that one");
      notes = [`This commit is also the head of #${other.target.number}, an agent's pull request (${other.rule}), so it is judged as #${other.target.number}, under the policy of that pull request's base. ${own.why}`];
      target = other.target;
      policy = other.policy;
    }
    // Agent-ness is kept for the PR's life, with each of its heads (an invalid policy marks nobody).
    const decided = classify(store, target, policy);
    if (decided.agent && policy.kind !== "invalid") store.recordAgent(fullName(target.repo), target.number, decided.rule, target.head, deps.clock().toISOString());
    const judged = target;
    const agent = decided.agent ? agentIdentity(decided.rule, target.author) : target.author;
    deps.runner.submit({
      key: pullKey(judged.repo, judged.number), head: judged.head,
      run: (signal) => failClosed(check, deps, log, () => runJudgment(ctx, deps, judged, check, signal, policy, { ...options, notes, agent, queuedAt })),
    });
  });
}

interface RunOptions extends JudgeOptions {
  notes: string[];
  /** Signed into the verdict for the agents page: whose work, and when it was asked for. */
  agent: string;
  queuedAt: string;
}

async function runJudgment(ctx: GitHubContext, deps: AppDeps, target: PullTarget, check: JudgeCheck, signal: AbortSignal, policy: BasePolicy, options: RunOptions): Promise<void> {
  if (signal.aborted) return stopped(check, deps, target, signal);
  const store = pullRequestStore(deps);
  const task = taskFromBody(target.body);
  const inputs = { repository: fullName(target.repo), base: target.base, head: target.head, task };
  const notes = [...options.notes];
  let recorded = options.fresh === true ? null : store.recordedJudgment(inputs);
  // A check run already shown `queued` goes `in_progress`; one not yet created waits for the verdict
  // when that is known (recorded): it is then created completed, in one write.
  if (recorded === null || !deps.runner.startsAtOnce) check.start(deps.clock());
  if (recorded !== null) {
    // The same inputs were measured and signed before: that verdict stands, nothing is re-rolled.
    notes.push(`Base tip \`${target.base.slice(0, 7)}\`, head \`${target.head.slice(0, 7)}\`, its policy and task were judged before: this is that signed verdict (journal entry \`${recorded.journalId}\`), not a new measurement. A person with write access can ask for one with \`/ranex rejudge\`.`);
  } else {
    // Only measurement decides the verdict: the status update goes beside it and never stops it.
    recorded = await measure(ctx, deps, target, task, signal, { agent: options.agent, queuedAt: options.queuedAt });
    if (recorded === null) return stopped(check, deps, target, signal);
    store.recordJudgment(inputs, recorded);
  }
  if (signal.aborted) return stopped(check, deps, target, signal);
  const { verdict } = recorded;
  // An override stands on this very verdict entry (issue 23): a new push, a moved base or a
  // re-judgment is a new entry, so it ends there; the same inputs posted again keep it.
  const overridden = store.overrideOf(fullName(target.repo), target.number, recorded.journalId);
  if (overridden !== null) return postOverridden(ctx, deps, target, verdict, recorded.journalId, recorded.envelope, overridden, check);
  // Merge authority (issue 6): the decoration notice tops both summaries; ranex/approval follows the verdict.
  const notice = await decorationNotice(ctx, deps, target);
  const agents = agentsUrl(deps, fullName(target.repo));
  const output = renderOutput({ verdict, timings: recorded.timings, envelope: recorded.envelope, journalId: recorded.journalId, draft: target.draft, notice, notes, anchor: recorded.anchor, ...(agents === undefined ? {} : { agentsUrl: agents }) });
  // Refused for the whole window, the verdict waits in the outbox for the reconcile sweep; ranex/approval
  // is still decided now (issue 21), so it is posted (or held for the sweep too) rather than never.
  let refused: WritesRefused | null = null;
  try {
    await check.complete({
      conclusion: verdict.verdict === "CANDIDATE" ? "success" : "failure",
      ...output, annotations: annotationsOf(verdict),
      externalId: recorded.journalId, detailsUrl: detailsUrl(deps, recorded.journalId), completedAt: deps.clock(),
    });
  } catch (err) {
    if (!(err instanceof WritesRefused)) throw err;
    refused = err;
  }
  // Closed while the verdict was posted: nothing more on that PR.
  if (signal.aborted) return;
  const escalation = await afterVerdict(ctx, deps, target, verdict, recorded.journalId, policy, notice);
  if (escalation === "escalated") store.recordAppLabel(fullName(target.repo), target.number, ESCALATED_LABEL);
  if (refused !== null) throw refused;
}

/** Judges, then signs and journals. Null when the judgment was cut short (superseded, closed). */
async function measure(ctx: GitHubContext, deps: AppDeps, target: PullTarget, task: string | null, signal: AbortSignal, who: { agent: string; queuedAt: string }): Promise<RecordedJudgment | null> {
  const token = await installationToken(ctx.octokit);
  const ref = `refs/pull/${target.number}/head`;
  let judgment;
  try {
    judgment = await deps.judge({
      source: target.cloneUrl, base: target.base, head: target.head, task,
      dataDir: deps.dataDir, repository: fullName(target.repo), gitConfig: [fetchHeader(token)], refs: [ref],
    }, signal);
  } catch (err) {
    if (signal.aborted) return null;
    throw withoutSecret(err, token);
  }
  if (signal.aborted) return null;
  const recorded = await deps.record(judgment, { repository: fullName(target.repo), ref, time: deps.clock().toISOString(), ...who });
  return { journalId: recorded.journalId, verdict: judgment.verdict, timings: judgment.timings, envelope: recorded.envelope, anchor: recorded.anchor };
}

async function notAnAgent(ctx: GitHubContext, deps: AppDeps, target: PullTarget, check: JudgeCheck, why: string): Promise<void> {
  await close(check, "neutral", "not an agent PR",
    `${why}\n\nNo open agent pull request has this commit as its head either. Ranex Gate judges only agents' pull requests; this check is neutral so requiring it never blocks people.`, deps.clock());
  await neutralApproval(ctx, deps, target, why);
}

/** A judgment cut short: `cancelled`, never a passing conclusion, saying why. */
function stopped(check: JudgeCheck, deps: AppDeps, target: PullTarget, signal: AbortSignal): Promise<void> {
  const sha7 = target.head.slice(0, 7);
  if (signal.reason instanceof Closed) {
    return close(check, "cancelled", "cancelled: the pull request was closed",
      `#${target.number} was closed while \`${sha7}\` waited or was being judged, so this judgment was cancelled. Nothing more is posted on a closed pull request; reopening it judges its head again.`, deps.clock());
  }
  const by = signal.reason instanceof Superseded ? signal.reason.by : "a newer request";
  const by7 = by.slice(0, 7);
  return close(check, "cancelled", `superseded by ${by7}`,
    `A newer request for #${target.number} (head \`${by7}\`) arrived while \`${sha7}\` waited or was being judged, so this judgment was cancelled. This commit has no verdict from it; see the check run on \`${by7}\`.`, deps.clock());
}

/** A short completion without a verdict: not an agent PR, superseded, closed, or an error. */
function close(check: JudgeCheck, conclusion: Conclusion, title: string, summary: string, at: Date): Promise<void> {
  return check.complete({ conclusion, title, summary, completedAt: at });
}

/**
 * Runs `work`; if it throws, the check run is completed `failure` with the reason, so nothing is left
 * queued or in progress. Only a failure to post that completion itself is logged and swallowed. When
 * GitHub refused the writes for the whole window (WritesRefused), nothing more is sent now: the
 * check run is marked refused and the reconcile sweep completes it once GitHub answers.
 */
export async function failClosed(check: JudgeCheck, deps: AppDeps, log: Logger, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (err instanceof WritesRefused) {
      log.error({ reason: err.message }, "GitHub refused the check run's writes for the whole window: left to the reconcile sweep");
      return;
    }
    const reason = err instanceof Error ? err.message : String(err);
    log.error(err, "judging failed; completing the check run as failure");
    try {
      await close(check, "failure", `error: ${reason}`,
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
