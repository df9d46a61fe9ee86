// For each merge in a pull request that takes a parent from outside the PR (the base's history),
// the paths it changes relative to each parent, from GitHub's compare API. The kernel decides from
// them whether the merge only brings the base in (`bringsOnlyBase`); nothing is decided here.
import type { CommitFacts } from "../../kernel/approval.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import { statusOf } from "../protection/protection.js";

/** GitHub's compare lists at most 300 files; a longer list cannot prove a merge adds nothing. */
const COMPARE_FILES_CAP = 300;
/** Merges looked at per decision: more than this are taken as hands, not compared at GitHub's cost. */
const MERGES_CAP = 20;

export async function withMergeDiffs(octokit: GitHub, repo: RepoRef, commits: readonly CommitFacts[]): Promise<CommitFacts[]> {
  const listed = new Set(commits.map((c) => c.sha));
  let budget = MERGES_CAP;
  const out: CommitFacts[] = [];
  for (const commit of commits) {
    const parents = commit.parents ?? [];
    if (parents.length !== 2 || parents.every((p) => listed.has(p)) || budget <= 0) {
      out.push(commit);
      continue;
    }
    budget -= 1;
    const changedFrom: Record<string, readonly string[] | null> = {};
    for (const parent of parents) changedFrom[parent] = await changedPaths(octokit, repo, parent, commit.sha);
    out.push({ ...commit, changedFrom });
  }
  return out;
}

/** Paths that differ between `from` and `to` (both sides of a rename), or null when the list may be cut. */
async function changedPaths(octokit: GitHub, repo: RepoRef, from: string, to: string): Promise<string[] | null> {
  let data;
  try {
    ({ data } = await octokit.rest.repos.compareCommitsWithBasehead({ ...repo, basehead: `${from}...${to}`, per_page: 1 }));
  } catch (err) {
    // A comparison GitHub will not make (404, 422) proves nothing: the merge's author stays a hand.
    if (statusOf(err) === 404 || statusOf(err) === 422) return null;
    throw err;
  }
  const files = data.files ?? [];
  if (files.length >= COMPARE_FILES_CAP) return null;
  return files.flatMap((f) => (f.previous_filename === undefined ? [f.filename] : [f.filename, f.previous_filename]));
}
