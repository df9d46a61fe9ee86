// The pushers of a pull request's commits, who are hands in the change like its authors: every
// `pull_request.synchronize` sender is recorded (GitHub names the pusher nowhere else), and the
// PR's timeline adds whoever force-pushed its head branch, even before this app was installed.
import type { Context } from "probot";
import type { PushFacts } from "../../kernel/approval.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import type { AppDeps } from "../deps.js";

export const PUSH_EVENTS = ["pull_request.synchronize"] as const;

/**
 * Records who pushed. Runs beside the judging handler on the same delivery and claims no delivery
 * id (the record is idempotent). A failure is logged: the timeline still names force-pushers, and
 * the approval decision reads the store, so a lost record can only be a lost refusal, said loudly.
 */
export async function onPullRequestPush(context: Context<"pull_request.synchronize">, deps: AppDeps): Promise<void> {
  const authority = deps.mergeAuthority;
  if (authority === undefined) return;
  const { payload } = context;
  const repository = `${payload.repository.owner.login}/${payload.repository.name}`;
  try {
    await authority.pushes.record({
      repository, pull: payload.pull_request.number, login: payload.sender.login, before: payload.before, after: payload.after,
    });
  } catch (err) {
    context.log.error(err, "could not record who pushed to the pull request");
  }
}

interface TimelineEvent {
  event?: string;
  actor?: { login?: string } | null;
  commit_id?: string | null;
}

/** Force-pushes of the head branch from the PR's timeline, each naming its actor. */
export async function timelinePushes(octokit: GitHub, repo: RepoRef, number: number): Promise<PushFacts[]> {
  const events = await octokit.paginate(octokit.rest.issues.listEventsForTimeline, { ...repo, issue_number: number, per_page: 100 }) as TimelineEvent[];
  return events
    .filter((e) => e.event === "head_ref_force_pushed" && typeof e.actor?.login === "string" && e.actor.login !== "")
    .map((e) => ({ login: e.actor?.login ?? "", before: null, after: e.commit_id ?? null, via: "force-push" }));
}
