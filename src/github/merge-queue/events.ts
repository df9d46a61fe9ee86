// merge_group webhooks. `checks_requested`: judge the queue commit (./job.ts). `destroyed`: the group
// was merged, dequeued or invalidated; cancel its work in flight and complete any ranex/judge still
// open on its commit as `cancelled`, so nothing is left in progress.
import type { Context } from "probot";
import type { GitHub, RepoRef } from "../check-runs.js";
import type { AppDeps } from "../deps.js";
import { JUDGE_CHECK, statusOf } from "../protection/protection.js";
import type { MergeGroup } from "./group.js";
import { destroyedMark, judgeMergeGroup, mergeGroupKey } from "./job.js";

export const MERGE_GROUP_EVENTS = ["merge_group.checks_requested", "merge_group.destroyed"] as const;

type MergeGroupContext = Context<"merge_group">;

interface MergeGroupPayload {
  action?: string;
  reason?: string;
  merge_group?: { head_sha?: string; head_ref?: string; base_sha?: string; base_ref?: string };
  repository?: { name?: string; owner?: { login?: string }; clone_url?: string };
}

export async function onMergeGroup(context: MergeGroupContext, deps: AppDeps): Promise<void> {
  if (!deps.runner.accept(context.id)) {
    context.log.info({ delivery: context.id }, "delivery already handled: not judged again");
    return;
  }
  const group = groupOf(context.payload);
  if (context.payload.action === "checks_requested") {
    await judgeMergeGroup({ octokit: context.octokit, log: context.log }, deps, group, context.id);
    return;
  }
  const reason = (context.payload as MergeGroupPayload).reason;
  const log = context.log.child({ repository: `${group.repo.owner}/${group.repo.repo}`, mergeGroup: group.headSha, delivery: context.id, reason });
  // Submitting under the group's key aborts its judgment (in this process at once; in other queue
  // workers through the coalescing key the receiver stored); then what is still open is cancelled.
  deps.runner.submit({
    key: mergeGroupKey(group), head: destroyedMark(reason),
    run: () => cancelOpenChecks(context.octokit, group.repo, group.headSha, deps, reason ?? "unknown").catch((err: unknown) => {
      log.error(err, "could not cancel the open checks of a destroyed merge group");
    }),
  });
}

export function groupOf(payload: MergeGroupPayload): MergeGroup {
  const mg = payload.merge_group ?? {};
  return {
    repo: { owner: payload.repository?.owner?.login ?? "", repo: payload.repository?.name ?? "" },
    headSha: mg.head_sha ?? "", baseSha: mg.base_sha ?? "", headRef: mg.head_ref ?? "",
    baseBranch: (mg.base_ref ?? "").replace(/^refs\/heads\//, ""), cloneUrl: payload.repository?.clone_url ?? "",
  };
}

/** The receiver's coalescing for merge_group deliveries: `destroyed` makes the group's newest "head" its mark. */
export function mergeGroupCoalescing(payload: unknown): { key: string; head: string } | null {
  const p = payload as MergeGroupPayload;
  const group = groupOf(p);
  if (group.headSha === "" || group.repo.owner === "" || group.repo.repo === "") return null;
  if (p.action === "checks_requested") return { key: mergeGroupKey(group), head: group.headSha };
  if (p.action === "destroyed") return { key: mergeGroupKey(group), head: destroyedMark(p.reason) };
  return null;
}

async function cancelOpenChecks(octokit: GitHub, repo: RepoRef, head: string, deps: AppDeps, reason: string): Promise<void> {
  const appId = deps.mergeAuthority?.appId ?? null;
  const runs = await octokit.paginate(octokit.rest.checks.listForRef, { ...repo, ref: head, check_name: JUDGE_CHECK, per_page: 100 });
  for (const run of runs) {
    if (run.status === "completed" || (appId !== null && run.app?.id !== appId)) continue;
    try {
      await octokit.rest.checks.update({
        ...repo, check_run_id: run.id, status: "completed", conclusion: "cancelled",
        completed_at: deps.clock().toISOString().replace(/\.\d{3}Z$/, "Z"),
        output: { title: `cancelled: the merge group was destroyed (${reason})`, summary: `GitHub destroyed this merge group (\`${reason}\`) before its judgment finished, so the judgment was cancelled. Nothing lands from this group; a new group gets its own judgment.` },
      });
    } catch (err) {
      // Another app's check run of the same name cannot be written by this one: not ours to close.
      if (statusOf(err) !== 403) throw err;
    }
  }
}
