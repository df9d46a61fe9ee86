// Which pull requests a merge group carries. GitHub's merge queue builds one read-only branch per
// queued pull request, `gh-readonly-queue/<base>/pr-<n>-<sha>`, each on top of the entries ahead of
// it, and a group's commit is the branch of its last entry. So the group is: the pull request its own
// branch names, plus every queue branch of the same base whose commit lies between the group's base
// and head (`compare base...head`). This holds for every merge method (merge, squash, rebase), where
// reading merge-commit messages or associating commits with pull requests does not: a squashed or
// rebased queue commit is a new commit no pull request contains.
import type { GitHub, RepoRef } from "../check-runs.js";

export interface MergeGroup {
  repo: RepoRef;
  headSha: string;
  baseSha: string;
  /** `refs/heads/gh-readonly-queue/main/pr-7-<sha>`. */
  headRef: string;
  /** The base branch's name, `main` (from `base_ref`, `refs/heads/main`). */
  baseBranch: string;
  cloneUrl: string;
}

export interface GroupPull {
  number: number;
  head: string;
  headRef: string;
  author: string;
  labels: string[];
  body: string | null;
}

/** Beyond this many commits between base and head the group is not read (and fails closed). */
const MAX_COMPARE_PAGES = 10;
const PER_PAGE = 100;

export function queueBranchPrefix(baseBranch: string): string {
  return `refs/heads/gh-readonly-queue/${baseBranch}/`;
}

/** The pull request a queue branch names, or null when the ref is not a queue branch of that base. */
export function pullOfQueueRef(ref: string, baseBranch: string): number | null {
  const prefix = queueBranchPrefix(baseBranch);
  if (!ref.startsWith(prefix)) return null;
  const match = /^pr-(\d+)-[0-9a-f]{40}$/.exec(ref.slice(prefix.length));
  return match === null ? null : Number(match[1]);
}

/** The numbers of the group's pull requests, ascending. Throws with a reason a person understands. */
export async function groupPullNumbers(octokit: GitHub, group: MergeGroup): Promise<number[]> {
  const last = pullOfQueueRef(group.headRef, group.baseBranch);
  if (last === null) throw new Error(`the merge group's branch \`${group.headRef}\` is not a merge queue branch of \`${group.baseBranch}\` (gh-readonly-queue/${group.baseBranch}/pr-<number>-<sha>)`);
  const inGroup = await commitsBetween(octokit, group);
  const refs = await octokit.paginate(octokit.rest.git.listMatchingRefs, {
    ...group.repo, ref: queueBranchPrefix(group.baseBranch).replace(/^refs\//, ""), per_page: 100,
  });
  const numbers = new Set([last]);
  for (const ref of refs) {
    const number = pullOfQueueRef(ref.ref, group.baseBranch);
    if (number !== null && inGroup.has(ref.object.sha)) numbers.add(number);
  }
  return [...numbers].sort((a, b) => a - b);
}

async function commitsBetween(octokit: GitHub, group: MergeGroup): Promise<Set<string>> {
  const shas = new Set<string>();
  for (let page = 1; page <= MAX_COMPARE_PAGES; page += 1) {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ ...group.repo, basehead: `${group.baseSha}...${group.headSha}`, per_page: PER_PAGE, page });
    if (data.status !== "ahead") {
      throw new Error(`the merge group's head \`${group.headSha.slice(0, 7)}\` is not built on its base \`${group.baseSha.slice(0, 7)}\` (GitHub compares them as ${data.status})`);
    }
    for (const commit of data.commits) shas.add(commit.sha);
    if (data.commits.length < PER_PAGE || shas.size >= data.total_commits) return shas;
  }
  throw new Error(`the merge group holds more than ${MAX_COMPARE_PAGES * PER_PAGE} commits: too many to tell its pull requests apart`);
}

/** Each pull request as GitHub has it now: the head that was queued, its author, labels and body. */
export async function groupPulls(octokit: GitHub, group: MergeGroup, numbers: readonly number[]): Promise<GroupPull[]> {
  const pulls: GroupPull[] = [];
  for (const number of numbers) {
    const { data } = await octokit.rest.pulls.get({ ...group.repo, pull_number: number });
    pulls.push({
      number, head: data.head.sha, headRef: data.head.ref, author: data.user.login,
      labels: data.labels.map((l) => l.name), body: data.body,
    });
  }
  return pulls;
}
