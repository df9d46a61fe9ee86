// Gathers the plain facts the kernel's approval rules take, from GitHub: the PR's commits, its
// reviews, and for each human who approved the head their permission, approval-team membership and
// public profile (name and e-mail, to match Co-authored-by trailers). Nothing is decided here.
import {
  coAuthorsOf, type ApprovalFacts, type ApprovalPolicy, type CommitFacts, type ReviewFacts, type ReviewerFacts,
} from "../../kernel/approval.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import { statusOf } from "../protection/protection.js";

export interface PullFactsInput {
  repo: RepoRef;
  number: number;
  head: string;
  author: string;
}

export async function gatherApprovalFacts(octokit: GitHub, pr: PullFactsInput, policy: ApprovalPolicy, appLogin: string | null): Promise<ApprovalFacts> {
  const params = { ...pr.repo, pull_number: pr.number, per_page: 100 };
  const [rawCommits, rawReviews] = await Promise.all([
    octokit.paginate(octokit.rest.pulls.listCommits, params),
    octokit.paginate(octokit.rest.pulls.listReviews, params),
  ]);
  const commits: CommitFacts[] = rawCommits.map((c) => ({
    sha: c.sha,
    author: { login: c.author?.login ?? null, name: c.commit.author?.name ?? "", email: c.commit.author?.email ?? "" },
    committer: { login: c.committer?.login ?? null, name: c.commit.committer?.name ?? "", email: c.commit.committer?.email ?? "" },
    message: c.commit.message,
  }));
  const reviews: ReviewFacts[] = rawReviews.map((r) => ({
    id: r.id, login: r.user?.login ?? "", userType: r.user?.type ?? "", state: r.state, commitId: r.commit_id ?? null,
  }));
  // Profiles are needed only when some identity in the change is not an account GitHub matched.
  const needProfiles = commits.some((c) => c.author.login === null || c.committer.login === null || coAuthorsOf(c.message).length > 0);
  const reviewers: Record<string, ReviewerFacts> = {};
  for (const login of approversOfHead(reviews, pr.head)) {
    reviewers[login.toLowerCase()] = await reviewerFacts(octokit, pr.repo, login, policy.teams, needProfiles);
  }
  return { head: pr.head, author: pr.author, commits, reviews, reviewers, policy, appLogin };
}

/** Humans whose latest review approves the head: the only ones whose permission can matter. */
function approversOfHead(reviews: readonly ReviewFacts[], head: string): string[] {
  const latest = new Map<string, ReviewFacts>();
  for (const r of reviews) if (r.state !== "COMMENTED" && r.state !== "PENDING") latest.set(r.login.toLowerCase(), r);
  return [...latest.values()]
    .filter((r) => r.state === "APPROVED" && r.commitId === head && r.userType === "User" && !r.login.endsWith("[bot]"))
    .map((r) => r.login);
}

async function reviewerFacts(octokit: GitHub, repo: RepoRef, login: string, teams: readonly string[], needProfile: boolean): Promise<ReviewerFacts> {
  let role: string | null = null;
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: login });
    // `permission` folds maintain into write and triage into read; `role_name` keeps them apart.
    role = data.role_name || data.permission;
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
  const memberOf: string[] = [];
  if (role === null || !["admin", "maintain", "write"].includes(role)) {
    for (const team of teams) if (await isTeamMember(octokit, team, login)) memberOf.push(team);
  }
  let name: string | null = null;
  let email: string | null = null;
  if (needProfile) {
    const { data } = await octokit.rest.users.getByUsername({ username: login });
    name = data.name ?? null;
    email = data.email ?? null;
  }
  return { role, teams: memberOf, name, email };
}

/** `org/team-slug`: an active member counts; a pending invitation or no membership does not. */
async function isTeamMember(octokit: GitHub, team: string, login: string): Promise<boolean> {
  const [org, slug] = team.replace(/^@/, "").split("/");
  if (org === undefined || slug === undefined || org === "" || slug === "") return false;
  try {
    const { data } = await octokit.rest.teams.getMembershipForUserInOrg({ org, team_slug: slug, username: login });
    return data.state === "active";
  } catch (err) {
    // 404: not a member (or no such team). 403: the app lacks members:read; fail closed, not a member.
    if (statusOf(err) === 404 || statusOf(err) === 403) return false;
    throw err;
  }
}
