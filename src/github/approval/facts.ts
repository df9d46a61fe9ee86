// Gathers the plain facts the kernel's approval rules take, from GitHub: the pull request as it is
// now (base, commit count), its commits with their parents and, for merges of the base, what they
// change; its reviews; who pushed to it; and for each human who approved the head their role,
// approval-team membership and public profile (to match Co-authored-by trailers). Nothing is
// decided here.
import {
  coAuthorsOf, type ApprovalFacts, type ApprovalPolicy, type CommitFacts, type PushFacts, type ReviewFacts, type ReviewerFacts,
} from "../../kernel/approval.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import { statusOf } from "../protection/protection.js";
import { withMergeDiffs } from "./merges.js";
import { roleOf, WRITE_ROLES } from "./permission.js";
import { timelinePushes } from "./pushes.js";

export interface PullFactsInput {
  repo: RepoRef;
  number: number;
  head: string;
  author: string;
}

/** The pull request as GitHub reports it now. */
export interface CurrentPull {
  number: number;
  state: string;
  head: string;
  base: string;
  baseRef: string;
  author: string;
  /** How many commits GitHub counts, which may be more than it lists. */
  commits: number | null;
}

export async function currentPullOf(octokit: GitHub, repo: RepoRef, number: number): Promise<CurrentPull> {
  const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: number });
  return {
    number, state: data.state, head: data.head.sha, base: data.base.sha, baseRef: data.base.ref,
    author: data.user?.login ?? "", commits: typeof data.commits === "number" ? data.commits : null,
  };
}

export interface GatherOptions {
  policy: ApprovalPolicy;
  appLogin: string | null;
  /** Pushes recorded from `synchronize` senders. */
  recordedPushes: readonly PushFacts[];
}

export async function gatherApprovalFacts(octokit: GitHub, pr: PullFactsInput, pull: CurrentPull, options: GatherOptions): Promise<ApprovalFacts> {
  const params = { ...pr.repo, pull_number: pr.number, per_page: 100 };
  const [commits, rawReviews, forcePushes] = await Promise.all([
    pullCommits(octokit, pr.repo, pr.number),
    octokit.paginate(octokit.rest.pulls.listReviews, params),
    timelinePushes(octokit, pr.repo, pr.number),
  ]);
  const reviews: ReviewFacts[] = rawReviews.map((r) => ({
    id: r.id, login: r.user?.login ?? "", userType: r.user?.type ?? "", state: r.state, commitId: r.commit_id ?? null,
  }));
  // Profiles are needed only when some identity in the change is not an account GitHub matched.
  const needProfiles = commits.some((c) => c.author.login === null || c.committer.login === null || coAuthorsOf(c.message).length > 0);
  const reviewers: Record<string, ReviewerFacts> = {};
  for (const login of approversOfHead(reviews, pr.head)) {
    reviewers[login.toLowerCase()] = await reviewerFacts(octokit, pr.repo, login, options.policy.teams, needProfiles);
  }
  return {
    head: pr.head, author: pull.author !== "" ? pull.author : pr.author, commits, reviews, reviewers, policy: options.policy,
    appLogin: options.appLogin, pushes: [...options.recordedPushes, ...forcePushes], commitCount: pull.commits,
    noreplyHosts: noreplyHostsOf(octokit),
  };
}

/** The pull request's commits as the kernel reads them, merges of the base with what they change. */
export async function pullCommits(octokit: GitHub, repo: RepoRef, number: number): Promise<CommitFacts[]> {
  const rawCommits = await octokit.paginate(octokit.rest.pulls.listCommits, { ...repo, pull_number: number, per_page: 100 });
  const listed: CommitFacts[] = rawCommits.map((c) => ({
    sha: c.sha,
    author: { login: c.author?.login ?? null, name: c.commit.author?.name ?? "", email: c.commit.author?.email ?? "" },
    committer: { login: c.committer?.login ?? null, name: c.commit.committer?.name ?? "", email: c.commit.committer?.email ?? "" },
    message: c.commit.message,
    parents: c.parents.map((p) => p.sha),
  }));
  return withMergeDiffs(octokit, repo, listed);
}

/** github.com always; the Enterprise host too when the app talks to one (`https://<host>/api/v3`). */
export function noreplyHostsOf(octokit: GitHub): string[] {
  const baseUrl = String((octokit.request.endpoint.DEFAULTS as { baseUrl?: unknown }).baseUrl ?? "");
  let host = "";
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    host = "";
  }
  return host === "" || host === "api.github.com" ? ["github.com"] : ["github.com", host];
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
  const role = await roleOf(octokit, repo, login);
  const memberOf: string[] = [];
  if (role === null || !WRITE_ROLES.has(role)) {
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
export async function isTeamMember(octokit: GitHub, team: string, login: string): Promise<boolean> {
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
