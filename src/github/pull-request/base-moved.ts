// push: a base branch moved on. A CANDIDATE names the base tip it was measured on, and what lands is
// the head merged into the tip at merge time. Where the branch's policy opts in
// (`tests.rejudge_on_base_push`), every open agent PR into the branch is judged again against the
// new tip: queued at the lowest priority, and coalesced (a judgment whose tip is no longer the
// branch's is skipped when its turn comes, since a newer push queued its own).
import type { Context } from "probot";
import type { AppDeps } from "../deps.js";
import { readBasePolicy } from "./agents.js";
import { classify, honouredLabels } from "./classify.js";
import { BASE_MOVED_ACTION } from "./events.js";
import { judgePullRequest, pullRequestStore } from "./judge-pr.js";
import { endOverridesOnBasePush } from "./overridden.js";
import { fullName, targetOf } from "./target.js";

/** Open pull requests looked at per push, at most. */
const MAX_PULLS = 100;

export async function onPush(context: Context<"push">, deps: AppDeps): Promise<void> {
  const { payload } = context;
  if (!payload.ref.startsWith("refs/heads/") || payload.deleted) return;
  const branch = payload.ref.slice("refs/heads/".length);
  const repository = payload.repository;
  const repo = { owner: repository.full_name.split("/")[0] ?? "", repo: repository.name };
  // A moved base ends every override on a pull request into it (issue 23), whatever the policy says next.
  await endOverridesOnBasePush({ octokit: context.octokit, log: context.log }, deps, repo, branch, payload.after);
  const policy = await readBasePolicy(context.octokit, repo, payload.after);
  if (policy.kind !== "valid" || !policy.policy.tests.rejudge_on_base_push) return;
  if (!deps.runner.accept(context.id)) return;
  const pulls = await context.octokit.paginate(context.octokit.rest.pulls.list, { ...repo, state: "open", base: branch, per_page: 100 });
  const store = pullRequestStore(deps);
  const log = context.log.child({ repository: fullName(repo), branch, tip: payload.after, delivery: context.id });
  for (const pull of pulls.slice(0, MAX_PULLS)) {
    const moved = { ...pull, base: { ...pull.base, sha: payload.after } };
    const target = targetOf(moved, { ...repository, owner: { login: repo.owner } });
    if (!classify(store, { ...target, labels: honouredLabels(store, target) }, policy).agent) continue;
    const id = `base-moved:${fullName(repo)}#${pull.number}@${payload.after}:${pull.head.sha}`;
    log.info({ pr: pull.number }, "the base moved on: the agent pull request is judged again against the new tip");
    if (deps.enqueue === undefined) {
      if (deps.runner.accept(id)) await judgePullRequest({ octokit: context.octokit, log: context.log }, deps, target, id);
      continue;
    }
    await deps.enqueue({
      id, name: "pull_request",
      payload: { action: BASE_MOVED_ACTION, number: pull.number, pull_request: moved, repository: { ...repository, owner: { login: repo.owner } }, installation: payload.installation },
    }, { low: true });
  }
}
