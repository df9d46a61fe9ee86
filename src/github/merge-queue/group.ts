// Which pull requests a merge group carries. GitHub's merge queue builds read-only branches,
// `gh-readonly-queue/<base>/pr-<n>-<sha>` (named after the last pull request of a build, `<sha>` the
// commit it is stacked on), each on top of the builds ahead of it; the group's commit is the branch
// of its last build. No single source lists every member, so the group is the union of three:
// - the pull request the group's own branch names;
// - every queue branch of the same base whose commit lies between the group's base and head
//   (`compare base...head`): the builds stacked under this one;
// - the pull requests GitHub's queue commits name between base and head ("Merge pull request #n
//   from …" for the merge method, a first line ending in "(#n)" for squash), which finds the
//   members of a batch that has one branch for several pull requests.
// A pull request found by a commit message counts only when it is open against the same base. The
// union errs toward more pull requests (more approvals asked for), never fewer; a member none of
// them finds (a rebased batch) still had its own ranex/judge and ranex/approval required to enter
// the queue.
import type { GitHub, RepoRef } from "../check-runs.js";
import { statusOf } from "../protection/protection.js";

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

/** The group's pull request numbers, ascending, by how they were found. Throws with a reason a person understands. */
export async function groupPullNumbers(octokit: GitHub, group: MergeGroup): Promise<GroupNumbers> {
  const last = pullOfQueueRef(group.headRef, group.baseBranch);
  if (last === null) throw new Error(`the merge group's branch \`${group.headRef}\` is not a merge queue branch of \`${group.baseBranch}\` (gh-readonly-queue/${group.baseBranch}/pr-<number>-<sha>)`);
  const inGroup = await commitsBetween(octokit, group);
  const refs = await octokit.paginate(octokit.rest.git.listMatchingRefs, {
    ...group.repo, ref: queueBranchPrefix(group.baseBranch).replace(/^refs\//, ""), per_page: 100,
  });
  const queued = new Set([last]);
  for (const ref of refs) {
    const number = pullOfQueueRef(ref.ref, group.baseBranch);
    if (number !== null && inGroup.has(ref.object.sha)) queued.add(number);
  }
  const named = new Set<number>();
  for (const commit of inGroup.values()) {
    const number = pullOfQueueCommit(commit);
    if (number !== null && !queued.has(number)) named.add(number);
  }
  return { queued: [...queued].sort((a, b) => a - b), named: [...named].sort((a, b) => a - b) };
}

export interface GroupNumbers {
  /** Named by queue branches: members for certain. */
  queued: number[];
  /** Named only by a queue commit's message: members if open against the group's base. */
  named: number[];
}

interface CompareCommit {
  message: string;
  parents: number;
}

/** The pull request a merge queue commit names in GitHub's own wording, or null. */
export function pullOfQueueCommit(commit: CompareCommit): number | null {
  const first = commit.message.split("\n")[0] ?? "";
  const merged = commit.parents >= 2 ? /^Merge pull request #(\d+) from \S/.exec(first) : null;
  const squashed = commit.parents === 1 ? /\(#(\d+)\)$/.exec(first.trimEnd()) : null;
  const number = merged?.[1] ?? squashed?.[1];
  return number === undefined ? null : Number(number);
}

async function commitsBetween(octokit: GitHub, group: MergeGroup): Promise<Map<string, CompareCommit>> {
  const shas = new Map<string, CompareCommit>();
  for (let page = 1; page <= MAX_COMPARE_PAGES; page += 1) {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ ...group.repo, basehead: `${group.baseSha}...${group.headSha}`, per_page: PER_PAGE, page });
    if (data.status !== "ahead") {
      throw new Error(`the merge group's head \`${group.headSha.slice(0, 7)}\` is not built on its base \`${group.baseSha.slice(0, 7)}\` (GitHub compares them as ${data.status})`);
    }
    for (const commit of data.commits) shas.set(commit.sha, { message: commit.commit?.message ?? "", parents: commit.parents?.length ?? 0 });
    if (data.commits.length < PER_PAGE || shas.size >= data.total_commits) return shas;
  }
  throw new Error(`the merge group holds more than ${MAX_COMPARE_PAGES * PER_PAGE} commits: too many to tell its pull requests apart`);
}

/** Each pull request as GitHub has it now: the head that was queued, its author, labels and body. */
export async function groupPulls(octokit: GitHub, group: MergeGroup, numbers: GroupNumbers): Promise<GroupPull[]> {
  const pulls: GroupPull[] = [];
  const all = [...numbers.queued, ...numbers.named].sort((a, b) => a - b);
  for (const number of all) {
    let data;
    try {
      ({ data } = await octokit.rest.pulls.get({ ...group.repo, pull_number: number }));
    } catch (err) {
      // A number a commit message names may be an issue, not a pull request: not a member.
      if (numbers.named.includes(number) && statusOf(err) === 404) continue;
      throw err;
    }
    if (numbers.named.includes(number) && (data.state !== "open" || data.base.ref !== group.baseBranch)) continue;
    pulls.push({
      number, head: data.head.sha, headRef: data.head.ref, author: data.user.login,
      labels: data.labels.map((l) => l.name), body: data.body,
    });
  }
  return pulls;
}
