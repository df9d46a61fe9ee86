// One merge group, from checks_requested to both checks completed on the queue commit. The group's
// commit is what lands, so it is judged against the group's base with that base's policy; the
// targets are the tasks of the agent pull requests in it plus the new tests. ranex/approval needs an
// approval of every agent pull request's own head. Every path ends in completed checks: a verdict,
// `neutral` (no agent pull request), `cancelled` (the group was destroyed) or `failure` with why.
import type { Logger } from "probot";
import { postApproval, type ApprovalOutput } from "../approval/check.js";
import { approvalPolicyOf } from "../approval/approval.js";
import type { Completion, GitHub } from "../check-runs.js";
import { JudgeCheck } from "../pull-request/judge-check.js";
import { WritesRefused } from "../write-retry.js";
import { detailsUrl, type AppDeps } from "../deps.js";
import { cutTitle } from "../limits.js";
import { Superseded } from "../pull-request/jobs.js";
import { agentRule, readBasePolicy, type BasePolicy } from "../pull-request/agents.js";
import { annotationsOf } from "../pull-request/annotations.js";
import { renderOutput } from "../pull-request/render.js";
import { taskFromBody } from "../pull-request/task-line.js";
import { fetchHeader, installationToken, withoutToken } from "../token.js";
import { pullRequestStore } from "../pull-request/judge-pr.js";
import { decidePulls, groupApprovalOutput, neutralGroupOutput, type AgentPull } from "./approval.js";
import { groupPullNumbers, groupPulls, type GroupPull, type MergeGroup } from "./group.js";

export interface QueueContext {
  octokit: GitHub;
  log: Logger;
}

/** One job per group commit: `merge_group.destroyed` submits under the same key to cancel it. */
export function mergeGroupKey(group: Pick<MergeGroup, "repo" | "headSha">): string {
  return `${group.repo.owner}/${group.repo.repo}@merge_group:${group.headSha}`;
}

/** What the job's signal says when `merge_group.destroyed` aborted it: `destroyed:<reason>`. */
export function destroyedMark(reason: string | undefined): string {
  return `destroyed:${reason ?? "unknown"}`;
}

/**
 * Shows ranex/judge `queued` at once when the job may wait (created `in_progress` when it starts at
 * once, or completed when nothing is measured: issue 21's fewest writes), then queues the work. The
 * delivery is already claimed.
 */
export async function judgeMergeGroup(ctx: QueueContext, deps: AppDeps, group: MergeGroup, deliveryId: string): Promise<void> {
  const log = ctx.log.child({ repository: `${group.repo.owner}/${group.repo.repo}`, mergeGroup: group.headSha, base: group.baseSha, delivery: deliveryId });
  const check = new JudgeCheck(ctx.octokit, group.repo, group.headSha, log);
  if (!deps.runner.startsAtOnce) await check.queue();
  const job = new GroupJob({ ...ctx, log }, deps, group, check);
  deps.runner.submit({ key: mergeGroupKey(group), head: group.headSha, run: (signal) => job.run(signal) });
}

class GroupJob {
  /** Whether ranex/approval is out: an error after it completes only ranex/judge. */
  private approvalPosted = false;
  constructor(private readonly ctx: QueueContext, private readonly deps: AppDeps, private readonly group: MergeGroup, private readonly check: JudgeCheck) {}

  async run(signal: AbortSignal): Promise<void> {
    try {
      await this.judge(signal);
    } catch (err) {
      await this.fail(err);
    }
  }

  private async judge(signal: AbortSignal): Promise<void> {
    const { octokit } = this.ctx;
    const { group, deps } = this;
    if (signal.aborted) return this.cancelled(signal);
    const policy = await readBasePolicy(octokit, group.repo, group.baseSha);
    const pulls = await groupPulls(octokit, group, await groupPullNumbers(octokit, group));
    // Agent-ness is kept for a pull request's life (../pull-request/store.ts): a label taken off by
    // the agent, or a base without a policy, does not make its pull request a person's.
    const store = pullRequestStore(deps);
    const agents = agentPulls(pulls, policy, (n) => store.agentRecord(`${group.repo.owner}/${group.repo.repo}`, n)?.rule ?? null);
    if (policy.kind === "absent" && agents.length === 0) {
      return this.neutral(`The group's base \`${group.baseSha.slice(0, 7)}\` has no \`.github/ranex.yml\`, so no author, label or branch is marked as an agent's.`);
    }
    const listed = pulls.map((p) => `#${p.number}`).join(", ");
    if (agents.length === 0) {
      return this.neutral(`None of the pull requests in this merge group (${listed}) is an agent's under \`agents\` in the base's \`.github/ranex.yml\`.`);
    }
    if (signal.aborted) return this.cancelled(signal);
    this.ctx.log.info({ pulls: pulls.map((p) => p.number), agents: agents.map((a) => a.number) }, "merge group with agent pull requests: judging");
    // The status is not the verdict (issue 21): sent beside the work, never holding it up or failing it.
    this.check.start(deps.clock());

    const authority = deps.mergeAuthority;
    if (authority !== undefined) {
      const decided = await decidePulls({ octokit, log: this.ctx.log, deps, authority, repo: group.repo }, agents, approvalPolicyOf(policy));
      if (signal.aborted) return this.cancelled(signal);
      await this.postApproval(groupApprovalOutput(decided));
    }

    const tasks = [...new Set(agents.map((a) => taskFromBody(a.body)).filter((t): t is string => t !== null))].sort();
    const token = await installationToken(octokit);
    let judgment;
    try {
      judgment = await deps.judge({
        source: group.cloneUrl, base: group.baseSha, head: group.headSha, task: null, tasks,
        dataDir: deps.dataDir, repository: `${group.repo.owner}/${group.repo.repo}`, gitConfig: [fetchHeader(token)],
      }, signal);
    } catch (err) {
      if (signal.aborted) return this.cancelled(signal);
      throw withoutToken(err, token);
    }
    if (signal.aborted) return this.cancelled(signal);
    const recorded = await deps.record(judgment, { repository: `${group.repo.owner}/${group.repo.repo}`, ref: group.headRef, time: deps.clock().toISOString() });
    const output = renderOutput({
      verdict: judgment.verdict, timings: judgment.timings, envelope: recorded.envelope, journalId: recorded.journalId, draft: false,
      notice: groupNotice(group, pulls, agents, tasks), anchor: recorded.anchor,
    });
    await this.check.complete({
      conclusion: judgment.verdict.verdict === "CANDIDATE" ? "success" : "failure",
      ...output, annotations: annotationsOf(judgment.verdict),
      externalId: recorded.journalId, detailsUrl: detailsUrl(deps, recorded.journalId), completedAt: deps.clock(),
    });
  }

  private async neutral(why: string): Promise<void> {
    const { octokit } = this.ctx;
    await this.close("neutral", "no agent pull request in this merge group",
      `${why}\n\nRanex Gate judges only agents' pull requests; this check is neutral so requiring it never blocks people.`);
    if (this.deps.mergeAuthority !== undefined) await postApproval(octokit, this.group.repo, this.group.headSha, neutralGroupOutput(why), null, this.deps.clock());
  }

  private async cancelled(signal: AbortSignal): Promise<void> {
    const by = signal.reason instanceof Superseded ? signal.reason.by : "";
    const sha7 = this.group.headSha.slice(0, 7);
    if (!by.startsWith("destroyed:")) {
      return this.close("cancelled", "cancelled: checks requested again",
        `GitHub asked again for the checks of merge group \`${sha7}\` while this judgment waited or ran, so it was cancelled. See the newer \`ranex/judge\` check run on the same commit.`);
    }
    const reason = by.slice("destroyed:".length);
    this.ctx.log.info({ reason }, "merge group destroyed: judgment cancelled");
    return this.close("cancelled", `cancelled: the merge group was destroyed (${reason})`,
      `GitHub destroyed this merge group (\`${reason}\`) while \`${sha7}\` waited or was being judged, so the judgment was cancelled. Nothing lands from this group; a new group gets its own judgment.`);
  }

  /** A completion without a verdict: one PATCH, or one POST already completed when nothing was created. */
  private close(conclusion: Completion["conclusion"], title: string, summary: string): Promise<void> {
    return this.check.complete({ conclusion, title, summary, completedAt: this.deps.clock() });
  }

  /**
   * The group's ranex/approval. Refused for the whole write window (issue 21), the decision is held
   * in the outbox for the reconcile sweep to post; the judgment goes on, since only measurement
   * decides ranex/judge.
   */
  private async postApproval(output: ApprovalOutput): Promise<void> {
    try {
      await postApproval(this.ctx.octokit, this.group.repo, this.group.headSha, output, null, this.deps.clock());
    } catch (err) {
      if (!(err instanceof WritesRefused)) throw err;
      this.ctx.log.error({ reason: err.message }, "GitHub refused the merge group's ranex/approval for the whole window: held for the reconcile sweep; judging on");
    }
    this.approvalPosted = true;
  }

  /** Every error ends in completed checks with the reason; a failure to post that is only logged. */
  private async fail(err: unknown): Promise<void> {
    const reason = err instanceof Error ? err.message : String(err);
    const { octokit, log } = this.ctx;
    // Refused for the whole write window (issue 21): posting an error now would wait another window.
    if (err instanceof WritesRefused) {
      log.error({ reason }, "GitHub refused the merge group's check run writes for the whole window");
      return;
    }
    log.error(err, "judging the merge group failed; completing its checks as failure");
    const summary = `Ranex Gate could not finish judging this merge group, so it fails closed.\n\n**Reason:** ${reason}\n\nRemove the pull requests from the merge queue and add them again once the cause is fixed: a new group is judged anew.`;
    try {
      await this.close("failure", `error: ${reason}`, summary);
    } catch (postErr) {
      log.error(postErr, "could not complete ranex/judge on the merge group after an error");
    }
    if (this.deps.mergeAuthority === undefined || this.approvalPosted) return;
    try {
      await postApproval(octokit, this.group.repo, this.group.headSha, { conclusion: "failure", title: cutTitle(`error: ${reason}`), summary }, null, this.deps.clock());
    } catch (postErr) {
      log.error(postErr, "could not complete ranex/approval on the merge group after an error");
    }
  }
}

/** The agent pull requests of the group by the base's `agents` rules; an invalid policy counts every one (fail closed). */
export function agentPulls(pulls: readonly GroupPull[], policy: BasePolicy, recorded: (pull: number) => string | null = () => null): AgentPull[] {
  const out: AgentPull[] = [];
  for (const pull of pulls) {
    const kept = recorded(pull.number);
    if (policy.kind === "absent") {
      if (kept !== null) out.push({ ...pull, rule: `${kept} (recorded: an agent's pull request stays one)` });
      continue;
    }
    if (policy.kind !== "valid") {
      out.push({ ...pull, rule: "the base's .github/ranex.yml is invalid, so every pull request counts as an agent's" });
      continue;
    }
    const rule = agentRule(policy.policy.agents, { author: pull.author, labels: pull.labels, headRef: pull.headRef });
    if (rule !== null) out.push({ ...pull, rule });
    else if (kept !== null) out.push({ ...pull, rule: `${kept} (recorded: an agent's pull request stays one)` });
  }
  return out;
}

function groupNotice(group: MergeGroup, pulls: readonly GroupPull[], agents: readonly AgentPull[], tasks: readonly string[]): string {
  return [
    `**Merge group** \`${group.headSha.slice(0, 7)}\` on \`${group.baseBranch}\`: what lands if the queue merges it, judged against the base \`${group.baseSha.slice(0, 7)}\` with that base's policy.`,
    "",
    `- pull requests in the group: ${pulls.map((p) => `#${p.number}`).join(", ")}`,
    `- agent pull requests: ${agents.map((a) => `#${a.number} (${a.rule})`).join(", ")}`,
    `- tasks: ${tasks.length === 0 ? "none named (targets are the new tests)" : tasks.map((t) => `\`${t}\``).join(", ")}`,
  ].join("\n");
}
