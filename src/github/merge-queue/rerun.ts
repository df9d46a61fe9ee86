// The Re-run button on a merge group's `ranex/judge`. GitHub names no pull request for a queue
// commit, so the pull request path would answer "no pull request found"; here the group is judged
// again instead. The check_run payload does not carry the group's base: it is read back from the
// journalled verdict the re-run is asked on. Without one (the run was an error or cancelled) the
// group cannot be rebuilt, and the new check run fails, saying to queue the pull requests again.
import type { Context } from "probot";
import { statementOf, VERDICT_PREDICATE_TYPE, type VerdictPredicate } from "../../attest/index.js";
import { mayRejudge } from "../commands/authorize.js";
import { createCompletedCheck } from "../check-runs.js";
import type { AppDeps } from "../deps.js";
import { pullOfQueueRef, type MergeGroup } from "./group.js";
import { judgeMergeGroup } from "./job.js";

type RerunContext = Context<"check_run.rerequested">;

const QUEUE_BRANCH = /^gh-readonly-queue\/(.+)\/pr-\d+-[0-9a-f]{40}$/;

/** Whether the re-run check run is on a merge queue's commit (its suite's branch is a queue branch). */
export function isMergeGroupRun(payload: RerunContext["payload"]): boolean {
  return QUEUE_BRANCH.test(payload.check_run.check_suite?.head_branch ?? "");
}

export async function rerunMergeGroup(context: RerunContext, deps: AppDeps): Promise<void> {
  const { payload } = context;
  const repo = { owner: payload.repository.owner.login, repo: payload.repository.name };
  const branch = payload.check_run.check_suite?.head_branch ?? "";
  const head = payload.check_run.head_sha;
  const log = context.log.child({ repository: `${repo.owner}/${repo.repo}`, mergeGroup: head, delivery: context.id });
  const requester = { login: payload.sender.login, type: payload.sender.type };
  const baseBranch = QUEUE_BRANCH.exec(branch)?.[1] ?? "";
  const headRef = `refs/heads/${branch}`;
  const base = await journalledBase(deps, payload.check_run.external_id ?? null, head);
  // Authorized before anything is written, even a re-run that can only fail: a bot's or an
  // operator's click must not turn the group's check red (that would dequeue the group). A merge
  // group has no author of its own; the operators are those of the journalled base's policy, or,
  // when no base is known, of the base branch's policy as it is now.
  const authorization = await mayRejudge(context.octokit, repo, requester, { author: "", base: base ?? baseBranch });
  if (!authorization.allowed) {
    // No pull request to reply on: the earlier judgment of the group stands, and the log says why.
    log.info({ requester: requester.login, reason: authorization.reason }, "re-run of a merge group refused");
    return;
  }
  if (base === null) {
    // Known before anything is posted: one write, created already completed (issue 21).
    await createCompletedCheck(context.octokit, repo, head, {
      conclusion: "failure", title: "cannot re-run: the merge group's base is not known", completedAt: deps.clock(),
      summary: `The check run re-run on \`${head.slice(0, 7)}\` holds no journalled verdict of this merge group, so its base commit is not known and the group cannot be judged again. Remove the pull requests from the merge queue and add them again: the new group is judged anew.`,
    });
    return;
  }
  await deps.recordRejudge({
    repository: `${repo.owner}/${repo.repo}`, pullRequest: pullOfQueueRef(headRef, baseBranch) ?? 0, head,
    requestedBy: requester.login, via: "check_run", time: deps.clock().toISOString(),
  });
  const group: MergeGroup = { repo, headSha: head, baseSha: base, headRef, baseBranch, cloneUrl: payload.repository.clone_url };
  await judgeMergeGroup({ octokit: context.octokit, log }, deps, group, context.id);
}

/** The base of the journalled verdict of this group commit, or null. */
async function journalledBase(deps: AppDeps, entryId: string | null, head: string): Promise<string | null> {
  if (entryId === null || entryId === "") return null;
  const entry = await deps.findEntry(entryId) as { kind?: unknown; payload?: unknown } | null;
  const statement = entry === null ? null : statementOf(entry.payload);
  if (entry?.kind !== "verdict" || statement === null || statement.predicateType !== VERDICT_PREDICATE_TYPE) return null;
  const subject = (statement.predicate as VerdictPredicate).subject;
  return subject?.head === head && typeof subject.base === "string" ? subject.base : null;
}
