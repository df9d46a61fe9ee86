// pull_request webhooks: which actions can change the answer for a head, translated into one
// judgment (or, for `closed`, into cancelling work in flight). Two actions are the app's own and
// never come from GitHub: a reconcile sweep found a head without a check run, and a base branch
// moved on under an agent PR whose policy asks to be judged again then (src/github/pull-request/sweep.ts).
import type { Context } from "probot";
import { mayRejudge } from "../commands/authorize.js";
import type { AppDeps } from "../deps.js";
import { isAppLabel } from "./classify.js";
import { judgePullRequest, pullRequestStore } from "./judge-pr.js";
import { fullName, pullKey, targetOf } from "./target.js";
import { taskFromBody } from "./task-line.js";

export { targetOf };

/** Synthetic actions, enqueued by the app itself (never by a webhook: GitHub has no such actions). */
export const RECONCILE_ACTION = "ranex_reconcile";
export const BASE_MOVED_ACTION = "ranex_base_moved";

/** Actions that may judge a head. */
const JUDGED_ACTIONS = [
  "opened", "reopened", "synchronize", "ready_for_review", "edited", "labeled", "unlabeled", RECONCILE_ACTION, BASE_MOVED_ACTION,
] as const;

/** Actions whose head (or, for `closed`, the PR's end) the queue records as the PR's newest. */
export const COALESCED_ACTIONS: readonly string[] = [...JUDGED_ACTIONS, "closed"];

interface Payload {
  action: string;
  number: number;
  label?: { name: string };
  changes?: { body?: { from: string }; base?: { ref?: { from: string }; sha?: { from: string } } };
  sender?: { login: string; type: string };
  pull_request: Parameters<typeof targetOf>[0] & { state?: string };
  repository: Parameters<typeof targetOf>[1];
}

export async function onPullRequest(context: Context<"pull_request">, deps: AppDeps): Promise<void> {
  const payload = context.payload as unknown as Payload;
  const { action } = payload;
  const target = targetOf(payload.pull_request, payload.repository);
  const key = pullKey(target.repo, target.number);
  const log = context.log.child({ repository: fullName(target.repo), pr: target.number, action, delivery: context.id });
  if (action === "closed") {
    // Work in flight is cancelled; nothing more is posted on this PR.
    deps.runner.close(key);
    log.info("pull request closed: its judgments are cancelled");
    return;
  }
  if (!(JUDGED_ACTIONS as readonly string[]).includes(action) || target.state === "closed") return;
  if (action === "edited" && !retargeted(payload) && !taskChanged(payload)) return;
  // The app's own labels (`ranex:escalated`) are events the app caused: they never re-judge.
  if ((action === "labeled" || action === "unlabeled") && isAppLabel(payload.label?.name)) return;
  if (!deps.runner.accept(context.id)) {
    log.info("delivery already handled: not judged again");
    return;
  }
  if (action === "reopened") deps.runner.reopen(key);
  if (action === BASE_MOVED_ACTION && !await stillTheTip(context, target)) {
    log.info({ base: target.base }, "the base moved on again: a newer push judges this pull request");
    return;
  }
  if (action === "unlabeled" && payload.label !== undefined && payload.sender !== undefined) {
    await releaseLabel(context, deps, target, payload.label.name, payload.sender);
  }
  await judgePullRequest({ octokit: context.octokit, log: context.log }, deps, target, context.id);
}

/** `edited` with `changes.base`: the PR now targets another branch, whose tip and policy decide. */
function retargeted(payload: Payload): boolean {
  return payload.changes?.base !== undefined;
}

/** Other edits are words, not evidence, unless they change the task the body selects. */
function taskChanged(payload: Payload): boolean {
  const before = payload.changes?.body?.from;
  return before !== undefined && taskFromBody(before) !== taskFromBody(payload.pull_request.body);
}

/**
 * A label that made the PR an agent's was taken off. It stops counting only when a person who may
 * re-judge (write access, no hand in the change, not a bot: commands/authorize.ts) took it off;
 * anyone else's label change reclassifies nothing.
 */
async function releaseLabel(context: Context<"pull_request">, deps: AppDeps, target: ReturnType<typeof targetOf>, label: string, sender: { login: string; type: string }): Promise<void> {
  const store = pullRequestStore(deps);
  const record = store.agentRecord(fullName(target.repo), target.number);
  if (record?.rule !== `label ${label}`) return;
  const authorization = await mayRejudge(context.octokit, target.repo, sender, { author: target.author, base: target.base });
  if (authorization.allowed) {
    store.releaseLabel(fullName(target.repo), target.number, label);
    context.log.info({ label, by: sender.login }, "agent label removed by a writer with no hand in the change: the PR is classified again");
  } else {
    context.log.info({ label, by: sender.login, reason: authorization.reason }, "agent label removed by someone who may not reclassify: the PR stays an agent's");
  }
}

/** A base-moved judgment waits at low priority; when its turn comes the branch may have moved again. */
async function stillTheTip(context: Context<"pull_request">, target: ReturnType<typeof targetOf>): Promise<boolean> {
  if (target.baseRef === undefined) return true;
  const { data } = await context.octokit.rest.repos.getBranch({ ...target.repo, branch: target.baseRef });
  return data.commit.sha === target.base;
}
