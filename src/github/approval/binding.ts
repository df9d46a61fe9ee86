// The facts that bind a judge's CANDIDATE to the pull request an approval is given on (the kernel's
// `bindingProblems` decides): which pull request the verdict names, whether the PR's base still
// descends from the base the judge used, and which other open pull requests share the head commit.
import type { BindingFacts } from "../../kernel/approval.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import { statusOf } from "../protection/protection.js";
import type { CurrentPull } from "./facts.js";

export interface VerdictBinding {
  /** The pull request the verdict was given for; null when its record names none. */
  pull: number | null;
  /** The base commit the judge used. */
  base: string;
}

export async function bindingOf(octokit: GitHub, repo: RepoRef, pull: CurrentPull, verdict: VerdictBinding): Promise<BindingFacts> {
  const [baseDescends, sharedWith] = await Promise.all([
    verdict.base === pull.base ? Promise.resolve(true) : descends(octokit, repo, verdict.base, pull.base),
    openPullsWithHead(octokit, repo, pull.head, pull.number),
  ]);
  return { verdictPull: verdict.pull, pull: pull.number, verdictBase: verdict.base, base: pull.base, baseRef: pull.baseRef, baseDescends, sharedWith };
}

/** The pull request a verdict's journal subject names (`owner/name@refs/pull/7/head`), in this repository only. */
export function pullOfSubject(name: string | undefined, repo: RepoRef): number | null {
  const match = /^(.+)@refs\/pull\/(\d+)\/head$/.exec(name ?? "");
  if (match === null || (match[1] ?? "").toLowerCase() !== `${repo.owner}/${repo.repo}`.toLowerCase()) return null;
  return Number(match[2]);
}

/** Whether `later` descends from (or is) `earlier`: a base that moved on, not one swapped for another. */
async function descends(octokit: GitHub, repo: RepoRef, earlier: string, later: string): Promise<boolean | null> {
  try {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ ...repo, basehead: `${earlier}...${later}`, per_page: 1 });
    return data.status === "ahead" || data.status === "identical";
  } catch (err) {
    // GitHub cannot compare them (a commit gone, unrelated histories): not shown to descend.
    if (statusOf(err) === 404 || statusOf(err) === 422) return false;
    return null;
  }
}

/** Open pull requests other than `number` whose head is this commit (`commits/{sha}/pulls`). */
async function openPullsWithHead(octokit: GitHub, repo: RepoRef, head: string, number: number): Promise<number[]> {
  const pulls = await octokit.paginate(octokit.rest.repos.listPullRequestsAssociatedWithCommit, { ...repo, commit_sha: head, per_page: 100 });
  return pulls.filter((p) => p.state === "open" && p.head.sha === head && p.number !== number).map((p) => p.number).sort((a, b) => a - b);
}
