// Who may approve an agent's change (DESIGN.md, invariant 4), as a pure function of plain facts:
// the pull request's author, its commits, its reviews, and what is known about each reviewer. The
// code that talks to GitHub gathers these facts; nothing here reaches the world.
import { APPROVAL_CLAIM } from "./claims.js";
import { evaluate } from "./evaluate.js";
import { makeGate } from "./gate.js";
import { handsInTheChange, type CommitFacts, type Hand, type Identity, type PushFacts } from "./hands.js";
import { comparableName, noreplyLogin } from "./identity.js";
import type { Evidence, Subject, Verdict } from "./types.js";

export { bringsOnlyBase, type CommitFacts, type Identity, type PushFacts } from "./hands.js";
export { coAuthorsOf, isWebFlow, noreplyLogin } from "./identity.js";

export interface ReviewFacts {
  id: number;
  login: string;
  /** `User`, `Bot`, `Organization`, as GitHub reports the reviewer's account type. */
  userType: string;
  /** `APPROVED`, `CHANGES_REQUESTED`, `COMMENTED`, `DISMISSED`, `PENDING`. */
  state: string;
  /** The commit the review was given on. */
  commitId: string | null;
}

/** What is known about one reviewer beyond the review itself. Unknown means "not allowed". */
export interface ReviewerFacts {
  /**
   * What the reviewer may do, as GitHub's `permission` says (`admin`, `write`, `read`), with `maintain`
   * told apart from `write` by `role_name`; a custom role that inherits write is `write`. Null when not
   * a collaborator.
   */
  role: string | null;
  /** The policy's `approval.teams` this reviewer belongs to. */
  teams: readonly string[];
  /** The public profile name and e-mail, to match `Co-authored-by` trailers. */
  name: string | null;
  email: string | null;
}

export interface ApprovalPolicy {
  count: number;
  teams: readonly string[];
  /** `agents.operators`: people who run the agents, never approvers of their work. */
  operators: readonly string[];
}

export interface ApprovalFacts {
  head: string;
  author: string;
  commits: readonly CommitFacts[];
  /** In the order GitHub returns them (oldest first). */
  reviews: readonly ReviewFacts[];
  /** Keyed by lower-case login; only reviewers whose latest review approves need an entry. */
  reviewers: Readonly<Record<string, ReviewerFacts>>;
  policy: ApprovalPolicy;
  /** The app's own account (`ranex-gate[bot]`), never an approver. */
  appLogin: string | null;
  /** Pushes to the head branch, each naming its pusher: they are hands in the change too. */
  pushes: readonly PushFacts[];
  /** How many commits GitHub says the pull request has (null when unknown); more than `commits` lists fails closed. */
  commitCount: number | null;
  /** Hosts whose `users.noreply.<host>` addresses name accounts: github.com, or the Enterprise host. */
  noreplyHosts?: readonly string[];
}

export interface CountedApproval {
  login: string;
  reviewId: number;
}

export interface RefusedApproval {
  login: string;
  reviewId: number;
  reasons: string[];
}

export interface ApprovalDecision {
  head: string;
  needed: number;
  qualifying: CountedApproval[];
  /** Approvals (or dismissed approvals) that do not count, each with every reason. */
  refused: RefusedApproval[];
  /** People who had a hand in the change and so may never approve it, with why. */
  ineligible: { who: string; reason: string }[];
  /** Merge commits that only bring the base in: their authors and pushers are no hands. */
  baseMerges: string[];
  /** Reasons no approval can count for now (not every hand is known): fail closed. */
  blocked: string[];
  satisfied: boolean;
}

/** What ties a judge's CANDIDATE to the pull request an approval is given on. */
export interface BindingFacts {
  /** The pull request the judge's verdict names (from its journal entry), or null when it names none. */
  verdictPull: number | null;
  pull: number;
  /** The base commit the judge used. */
  verdictBase: string;
  /** The pull request's base commit now, and its branch. */
  base: string;
  baseRef: string;
  /** Whether `base` descends from `verdictBase`; only read when they differ; null when unknown. */
  baseDescends: boolean | null;
  /** Other open pull requests whose head is this same commit. */
  sharedWith: readonly number[];
}

const APPROVING_ROLES = new Set(["admin", "maintain", "write"]);
/** Review states that say nothing about approval: a comment does not withdraw one, as on GitHub. */
const SILENT_STATES = new Set(["COMMENTED", "PENDING"]);
/**
 * A collaborator's role as GitHub defines it: `permission` (admin, write, read, none) decides what
 * they may do; `role_name` only tells maintain from write (GitHub folds maintain into write). A
 * custom role that inherits write has `permission: write` and its own name: it is write. Null for
 * no access.
 */
export function effectiveRole(permission: string, roleName: string | null | undefined): string | null {
  const p = permission.toLowerCase();
  if (p === "admin" || p === "maintain") return p;
  if (p === "write") return roleName?.toLowerCase() === "maintain" ? "maintain" : "write";
  if (p === "read" || p === "triage") return roleName?.toLowerCase() === "triage" ? "triage" : "read";
  return null;
}

/** GitHub lists at most this many commits of a pull request (`pulls/{n}/commits`). */
export const LISTED_COMMITS_CAP = 250;

export function qualifyApprovals(facts: ApprovalFacts): ApprovalDecision {
  const hosts = facts.noreplyHosts ?? ["github.com"];
  const { hands, baseMerges } = handsInTheChange({ author: facts.author, commits: facts.commits, pushes: facts.pushes, operators: facts.policy.operators, noreplyHosts: hosts });
  const qualifying: CountedApproval[] = [];
  const refused: RefusedApproval[] = [];
  for (const review of latestReviews(facts.reviews)) {
    if (review.state !== "APPROVED" && review.state !== "DISMISSED") continue;
    const reasons = review.state === "DISMISSED" ? ["their approval was dismissed"] : [];
    reasons.push(...reasonsAgainst(review, facts, hands, hosts));
    if (reasons.length === 0) qualifying.push({ login: review.login, reviewId: review.id });
    else refused.push({ login: review.login, reviewId: review.id, reasons });
  }
  const needed = Math.max(1, facts.policy.count);
  const ineligible = hands.map((h) => ({ who: h.label, reason: h.reason }));
  const blocked = unknownHands(facts);
  return { head: facts.head, needed, qualifying, refused, ineligible, baseMerges, blocked, satisfied: blocked.length === 0 && qualifying.length >= needed };
}

/** When GitHub did not list every commit, some hand in the change is unknown: nobody may approve. */
export function unknownHands(facts: Pick<ApprovalFacts, "commitCount" | "commits">): string[] {
  if (facts.commitCount === null) return ["the pull request's commit count could not be read, so not every hand in the change can be known"];
  if (facts.commitCount <= facts.commits.length) return [];
  return [`the pull request has ${facts.commitCount} commits but GitHub listed only ${facts.commits.length} (it lists at most ${LISTED_COMMITS_CAP}), so not every hand in the change can be known: split the pull request`];
}

/**
 * Why a CANDIDATE may not be approved on this pull request: check runs belong to a commit, so the
 * verdict found on a head may have been given for another pull request with that head, or against
 * a base the pull request no longer targets. Empty when the verdict is this pull request's own.
 */
export function bindingProblems(b: BindingFacts): string[] {
  const problems: string[] = [];
  if (b.verdictPull === null) problems.push(`the judge's verdict on this commit names no pull request, so it cannot be bound to #${b.pull}: comment /ranex rejudge`);
  else if (b.verdictPull !== b.pull) problems.push(`the judge's verdict on this commit was given for pull request #${b.verdictPull}, not #${b.pull}: comment /ranex rejudge to judge it for this one`);
  if (b.verdictBase !== b.base && b.baseDescends !== true) {
    const now = `the judge used base ${b.verdictBase.slice(0, 7)}, but the pull request now targets ${b.baseRef} at ${b.base.slice(0, 7)}`;
    problems.push(b.baseDescends === false
      ? `${now}, which does not descend from it (was it retargeted?): it must be judged again`
      : `${now}, and whether that descends from it could not be read: it must be judged again`);
  }
  if (b.sharedWith.length > 0) {
    problems.push(`this commit is also the head of open pull requests ${b.sharedWith.map((n) => `#${n}`).join(", ")}, and a check run on a commit speaks for every pull request with that head: close the others, then review again`);
  }
  return problems;
}

/** The latest review of each reviewer that says something about approval. */
function latestReviews(reviews: readonly ReviewFacts[]): ReviewFacts[] {
  const latest = new Map<string, ReviewFacts>();
  for (const review of reviews) {
    if (!SILENT_STATES.has(review.state)) latest.set(review.login.toLowerCase(), review);
  }
  return [...latest.values()];
}

function reasonsAgainst(review: ReviewFacts, facts: ApprovalFacts, hands: readonly Hand[], hosts: readonly string[]): string[] {
  const reasons: string[] = [];
  const login = review.login.toLowerCase();
  if (facts.appLogin !== null && login === facts.appLogin.toLowerCase()) reasons.push("is this app");
  if (review.userType !== "User" || login.endsWith("[bot]")) reasons.push(`is not a human account (type ${review.userType})`);
  if (review.commitId !== facts.head) {
    reasons.push(`approved ${review.commitId === null ? "no commit" : `commit ${review.commitId.slice(0, 7)}`}, not the head ${facts.head.slice(0, 7)}`);
  }
  const known = facts.reviewers[login];
  const emails = reviewerEmails(login, known, facts.commits);
  const names = new Set([login, comparableName(known?.name ?? "")].filter((n) => n !== ""));
  for (const hand of hands) {
    if (isSamePerson(hand.identity, login, emails, names, hosts)) reasons.push(hand.reason);
  }
  // Permission matters only for a human's approval of the head; anything else is refused already.
  if (reasons.length > 0 || review.state !== "APPROVED") return reasons;
  const teams = (known?.teams ?? []).filter((t) => facts.policy.teams.some((p) => p.toLowerCase() === t.toLowerCase()));
  if (known === undefined) reasons.push("their permission could not be determined");
  else if (!APPROVING_ROLES.has(known.role ?? "") && teams.length === 0) {
    const has = known.role === null ? "is not a collaborator" : `has ${known.role} permission`;
    const teamsNote = facts.policy.teams.length > 0 ? `, or membership in ${facts.policy.teams.join(", ")}` : "";
    reasons.push(`${has}; approving needs write, maintain or admin${teamsNote}`);
  }
  return reasons;
}

/** The reviewer's public e-mail and every e-mail GitHub attributed to their account in these commits. */
export function reviewerEmails(login: string, known: ReviewerFacts | undefined, commits: readonly CommitFacts[]): Set<string> {
  const emails = new Set<string>();
  if (known?.email) emails.add(known.email.trim().toLowerCase());
  for (const c of commits) {
    for (const id of [c.author, c.committer]) {
      if (id.login?.toLowerCase() === login && id.email !== "") emails.add(id.email.trim().toLowerCase());
    }
  }
  return emails;
}

export function isSamePerson(identity: Identity, login: string, emails: ReadonlySet<string>, names: ReadonlySet<string>, hosts: readonly string[]): boolean {
  if (identity.login !== null && identity.login.toLowerCase() === login) return true;
  const email = identity.email.trim().toLowerCase();
  if (email !== "" && (noreplyLogin(email, hosts)?.toLowerCase() === login || emails.has(email))) return true;
  const name = comparableName(identity.name);
  return name !== "" && names.has(name);
}

/**
 * The signed CANDIDATE as kernel inputs again: its claims become the gate, each passing result the
 * evidence, so `evaluate` with an approver gives the PASS (or refuses one that is not for the head).
 */
export function approvalInputs(candidate: Verdict): { gate: ReturnType<typeof makeGate>; evidence: Evidence[]; subject: Subject } {
  if (candidate.verdict !== "CANDIDATE") throw new Error(`only a CANDIDATE can be approved; this verdict is ${candidate.verdict}`);
  const { digest, ...subject } = candidate.subject;
  const claims = candidate.claims.filter((c) => c.name !== APPROVAL_CLAIM);
  const evidence: Evidence[] = claims.map((c) => ({ claim: c.name, subject: digest, outcome: "pass", reason: c.reason, details: c.details }));
  return { gate: makeGate(claims.map((c) => c.name)), evidence, subject };
}

/** PASS when the decision is satisfied for the candidate's own head; else null. */
export function approvedVerdict(candidate: Verdict, decision: ApprovalDecision): Verdict | null {
  const first = decision.qualifying[0];
  if (!decision.satisfied || first === undefined || decision.head !== candidate.subject.head) return null;
  const { gate, evidence, subject } = approvalInputs(candidate);
  const verdict = evaluate(gate, evidence, subject, { login: decision.qualifying.map((q) => q.login).join(", "), sha: decision.head });
  return verdict.verdict === "PASS" ? verdict : null;
}
