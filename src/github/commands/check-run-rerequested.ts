// check_run.rerequested: the Re-run button on `ranex/judge`. Same authorization as `/ranex rejudge`.
import type { Context } from "probot";
import { closeCheck, createQueuedCheck } from "../check-runs.js";
import { CHECK_NAME, type AppDeps } from "../deps.js";
import { isMergeGroupRun, rerunMergeGroup } from "../merge-queue/rerun.js";
import { rejudge } from "./rejudge.js";

export async function onCheckRunRerequested(context: Context<"check_run.rerequested">, deps: AppDeps): Promise<void> {
  const { payload } = context;
  if (payload.check_run.name !== CHECK_NAME) return;
  if (!deps.runner.accept(context.id)) return;
  // A merge queue's commit names no pull request: its group is judged again (../merge-queue/rerun.ts).
  if (isMergeGroupRun(payload)) return rerunMergeGroup(context, deps);
  const repo = { owner: payload.repository.owner.login, repo: payload.repository.name };
  const oldHead = payload.check_run.head_sha;
  const log = context.log.child({ repository: `${repo.owner}/${repo.repo}`, head: oldHead, delivery: context.id });
  const pull = payload.check_run.pull_requests[0];
  if (pull === undefined) {
    // GitHub lists no pull request for heads in forks: nothing to re-judge, and it must say so.
    const id = await createQueuedCheck(context.octokit, repo, oldHead);
    await closeCheck(context.octokit, repo, id, "neutral", "no pull request found for this head",
      `GitHub named no pull request for \`${oldHead.slice(0, 7)}\` (it does not for heads in forks). Comment \`/ranex rejudge\` on the pull request instead.`, deps.clock());
    return;
  }
  const target = await rejudge({
    octokit: context.octokit, log, repo, number: pull.number, via: "check_run", deliveryId: context.id,
    requester: { login: payload.sender.login, type: payload.sender.type },
  }, deps);
  if (target !== null && target.head !== oldHead) {
    // The re-run was asked on an outdated head: the current head was judged instead, and the old one says so.
    const id = await createQueuedCheck(context.octokit, repo, oldHead);
    await closeCheck(context.octokit, repo, id, "neutral", `outdated head: judged ${target.head.slice(0, 7)} instead`,
      `\`${oldHead.slice(0, 7)}\` is no longer the head of #${pull.number}; the re-run judged the current head \`${target.head.slice(0, 7)}\`.`, deps.clock());
  }
}
