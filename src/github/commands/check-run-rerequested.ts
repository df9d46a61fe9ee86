// The Re-run buttons: `check_run.rerequested` on ranex/judge or ranex/approval, and "Re-run all"
// (`check_suite.rerequested`). Re-running ranex/judge (or all) measures the current head again, with
// the same authorization as `/ranex rejudge`; re-running ranex/approval decides the approval again
// from the reviews, without measuring. A head GitHub names no pull request for (a fork's) is looked
// up; when none is open, the new run says so `cancelled`: a re-run never passes without a verdict.
import type { Context, Logger } from "probot";
import { readBasePolicy } from "../pull-request/agents.js";
import { approvalPolicyOf, recheckApproval } from "../approval/approval.js";
import { createCompletedCheck, type GitHub, type RepoRef } from "../check-runs.js";
import { CHECK_NAME, type AppDeps } from "../deps.js";
import { isMergeGroupRun, rerunMergeGroup } from "../merge-queue/rerun.js";
import { APPROVAL_CHECK } from "../protection/protection.js";
import { rejudge } from "./rejudge.js";

/** GitHub's merge queue branches (`gh-readonly-queue/<base>/pr-<n>-<sha>`). */
const QUEUE_BRANCH = /^gh-readonly-queue\//;

/** Open pull requests re-judged for one Re-run, at most. */
const MAX_PULLS = 10;

interface Asked {
  octokit: GitHub;
  log: Logger;
  repo: RepoRef;
  head: string;
  listed: readonly { number: number }[];
  sender: { login: string; type: string };
  deliveryId: string;
}

export async function onCheckRunRerequested(context: Context<"check_run.rerequested">, deps: AppDeps): Promise<void> {
  const { payload } = context;
  const name = payload.check_run.name;
  if (name !== CHECK_NAME && name !== APPROVAL_CHECK) return;
  if (!deps.runner.accept(context.id)) return;
  // A merge queue's commit names no pull request: its group is judged again (../merge-queue/rerun.ts).
  if (name === CHECK_NAME && isMergeGroupRun(payload)) return rerunMergeGroup(context, deps);
  const asked = askedOf(context, payload.check_run.head_sha, payload.check_run.pull_requests);
  if (name === APPROVAL_CHECK) return decideApprovalAgain(asked, deps);
  await rejudgeHead(asked, deps);
}

export async function onCheckSuiteRerequested(context: Context<"check_suite.rerequested">, deps: AppDeps): Promise<void> {
  if (!deps.runner.accept(context.id)) return;
  const { check_suite: suite } = context.payload;
  // A merge queue's suite: the group's own Re-run (on its ranex/judge) judges it again; a `cancelled`
  // for "no open pull request" here would replace the group's verdict.
  if (QUEUE_BRANCH.test(suite.head_branch ?? "")) {
    context.log.info({ head: suite.head_sha }, "Re-run all on a merge group: re-run its ranex/judge instead");
    return;
  }
  await rejudgeHead(askedOf(context, suite.head_sha, suite.pull_requests), deps);
}

function askedOf(context: Context<"check_run.rerequested"> | Context<"check_suite.rerequested">, head: string, listed: readonly { number: number }[]): Asked {
  const { payload } = context;
  const repo = { owner: payload.repository.owner.login, repo: payload.repository.name };
  return {
    octokit: context.octokit, repo, head, listed, deliveryId: context.id,
    log: context.log.child({ repository: `${repo.owner}/${repo.repo}`, head, delivery: context.id }),
    sender: { login: payload.sender.login, type: payload.sender.type },
  };
}

/** Re-judges each open PR the head belongs to (authorized per PR) and marks an outdated head. */
async function rejudgeHead(asked: Asked, deps: AppDeps): Promise<void> {
  const pulls = await pullsOf(asked);
  if (pulls.length === 0) {
    await closed(asked, deps, "not re-judged: no open pull request has this head",
      `No open pull request has \`${asked.head.slice(0, 7)}\` as its head, so there is nothing to judge it for. Comment \`/ranex rejudge\` on the pull request instead.`);
    return;
  }
  const judged = new Set<string>();
  for (const number of pulls) {
    const target = await rejudge({ octokit: asked.octokit, log: asked.log, repo: asked.repo, number, via: "check_run", deliveryId: `${asked.deliveryId}#${number}`, requester: asked.sender }, deps);
    if (target !== null) judged.add(target.head);
  }
  if (judged.size > 0 && !judged.has(asked.head)) {
    // The re-run was asked on an outdated head: the current head was judged instead, and the old one says so.
    const now = [...judged].map((h) => h.slice(0, 7)).join(", ");
    await closed(asked, deps, `outdated head: judged ${now} instead`,
      `\`${asked.head.slice(0, 7)}\` is no longer the head of ${pulls.map((n) => `#${n}`).join(", ")}; the re-run judged the current head \`${now}\`.`);
  }
}

/** A re-run whose answer is known before anything is posted: one write, created already `cancelled` (issue 21). */
async function closed(asked: Asked, deps: AppDeps, title: string, summary: string): Promise<void> {
  await createCompletedCheck(asked.octokit, asked.repo, asked.head, { conclusion: "cancelled", title, summary, completedAt: deps.clock() });
}

/** The PR numbers a Re-run is about: GitHub's list, or (a fork's head) the open PRs with that head. */
async function pullsOf(asked: Asked): Promise<number[]> {
  if (asked.listed.length > 0) return asked.listed.slice(0, MAX_PULLS).map((p) => p.number);
  const found = await asked.octokit.paginate(asked.octokit.rest.repos.listPullRequestsAssociatedWithCommit, { ...asked.repo, commit_sha: asked.head, per_page: 100 });
  return found.filter((p) => p.state === "open" && p.head.sha === asked.head).slice(0, MAX_PULLS).map((p) => p.number);
}

/** Re-run on ranex/approval: decide again from the reviews of the PR's current head. Nothing is measured. */
async function decideApprovalAgain(asked: Asked, deps: AppDeps): Promise<void> {
  const authority = deps.mergeAuthority;
  if (authority === undefined) return;
  for (const number of await pullsOf(asked)) {
    const { data: pr } = await asked.octokit.rest.pulls.get({ ...asked.repo, pull_number: number });
    if (pr.state !== "open") continue;
    const notice = await authority.protection.notice(asked.octokit, asked.repo, pr.base.ref);
    await recheckApproval(
      { octokit: asked.octokit, log: asked.log, deps, authority, notice, target: { repo: asked.repo, number, head: pr.head.sha, author: pr.user?.login ?? "" } },
      deps.findEntry,
      async (base) => approvalPolicyOf(await readBasePolicy(asked.octokit, asked.repo, base)),
    );
  }
}
