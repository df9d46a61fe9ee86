// Who may approve an agent's change (DESIGN.md, invariant 4), as a pure function of plain facts:
// the pull request's author, its commits, its reviews, and what is known about each reviewer. The
// code that talks to GitHub gathers these facts; nothing here reaches the world.
import { APPROVAL_CLAIM } from "./claims.js";
import { evaluate } from "./evaluate.js";
import { makeGate } from "./gate.js";
import type { Evidence, Subject, Verdict } from "./types.js";

/** A git identity as a commit carries it; `login` is the account GitHub matched to it, if any. */
export interface Identity {
  login: string | null;
  name: string;
  email: string;
}

export interface CommitFacts {
  sha: string;
  author: Identity;
  committer: Identity;
  /** The full commit message: its `Co-authored-by` trailers name more hands in the change. */
  message: string;
}

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
  /** `admin`, `maintain`, `write`, `triage`, `read`; null when not a collaborator. */
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
  satisfied: boolean;
}

const APPROVING_ROLES = new Set(["admin", "maintain", "write"]);
/** Review states that say nothing about approval: a comment does not withdraw one, as on GitHub. */
const SILENT_STATES = new Set(["COMMENTED", "PENDING"]);
const GITHUB_WEB_COMMITTER = "noreply@github.com";
const TRAILER = /^[ \t]*co-authored-by:[ \t]*(.*?)[ \t]*<([^>\s]+)>[ \t]*$/gim;
const NOREPLY = /^(?:(\d+)\+)?([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\[bot\])?)@users\.noreply\.github\.com$/i;

/** The `Co-authored-by: Name <email>` trailers of a commit message. */
export function coAuthorsOf(message: string): { name: string; email: string }[] {
  return [...message.matchAll(TRAILER)].map((m) => ({ name: (m[1] ?? "").trim(), email: (m[2] ?? "").trim() }));
}

/** The login in a GitHub no-reply address (`<id>+<login>@users.noreply.github.com` or `<login>@…`). */
export function noreplyLogin(email: string): string | null {
  return NOREPLY.exec(email.trim())?.[2] ?? null;
}

export function qualifyApprovals(facts: ApprovalFacts): ApprovalDecision {
  const hands = handsInTheChange(facts);
  const qualifying: CountedApproval[] = [];
  const refused: RefusedApproval[] = [];
  for (const review of latestReviews(facts.reviews)) {
    if (review.state !== "APPROVED" && review.state !== "DISMISSED") continue;
    const reasons = review.state === "DISMISSED" ? ["their approval was dismissed"] : [];
    reasons.push(...reasonsAgainst(review, facts, hands));
    if (reasons.length === 0) qualifying.push({ login: review.login, reviewId: review.id });
    else refused.push({ login: review.login, reviewId: review.id, reasons });
  }
  const needed = Math.max(1, facts.policy.count);
  const ineligible = hands.map((h) => ({ who: h.label, reason: h.reason }));
  return { head: facts.head, needed, qualifying, refused, ineligible, satisfied: qualifying.length >= needed };
}

/** The latest review of each reviewer that says something about approval. */
function latestReviews(reviews: readonly ReviewFacts[]): ReviewFacts[] {
  const latest = new Map<string, ReviewFacts>();
  for (const review of reviews) {
    if (!SILENT_STATES.has(review.state)) latest.set(review.login.toLowerCase(), review);
  }
  return [...latest.values()];
}

interface Hand {
  /** How people read it: `@login`, or `Name <email>` when GitHub matched no account. */
  label: string;
  identity: Identity;
  reason: string;
}

function handsInTheChange(facts: ApprovalFacts): Hand[] {
  const hands: Hand[] = [{ label: `@${facts.author}`, identity: { login: facts.author, name: "", email: "" }, reason: "opened this pull request" }];
  for (const commit of facts.commits) {
    const sha7 = commit.sha.slice(0, 7);
    hands.push({ label: labelOf(commit.author), identity: commit.author, reason: `authored commit ${sha7}` });
    // GitHub's own web committer (`web-flow`, noreply@github.com) is no person.
    if (commit.committer.email.toLowerCase() !== GITHUB_WEB_COMMITTER) {
      hands.push({ label: labelOf(commit.committer), identity: commit.committer, reason: `committed ${sha7}` });
    }
    for (const co of coAuthorsOf(commit.message)) {
      const login = noreplyLogin(co.email);
      hands.push({ label: login === null ? `${co.name} <${co.email}>` : `@${login}`, identity: { login, ...co }, reason: `is a Co-authored-by of commit ${sha7}` });
    }
  }
  for (const operator of facts.policy.operators) {
    const login = operator.replace(/^@/, "");
    hands.push({ label: `@${login}`, identity: { login, name: "", email: "" }, reason: "runs the agents (agents.operators in .github/ranex.yml)" });
  }
  // One line per person and reason, in the order found.
  const seen = new Set<string>();
  return hands.filter((h) => {
    const key = `${h.label.toLowerCase()}\u0000${h.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function labelOf(identity: Identity): string {
  return identity.login !== null && identity.login !== "" ? `@${identity.login}` : `${identity.name} <${identity.email}>`;
}

function reasonsAgainst(review: ReviewFacts, facts: ApprovalFacts, hands: readonly Hand[]): string[] {
  const reasons: string[] = [];
  const login = review.login.toLowerCase();
  if (facts.appLogin !== null && login === facts.appLogin.toLowerCase()) reasons.push("is this app");
  if (review.userType !== "User" || login.endsWith("[bot]")) reasons.push(`is not a human account (type ${review.userType})`);
  if (review.commitId !== facts.head) {
    reasons.push(`approved ${review.commitId === null ? "no commit" : `commit ${review.commitId.slice(0, 7)}`}, not the head ${facts.head.slice(0, 7)}`);
  }
  const known = facts.reviewers[login];
  const emails = reviewerEmails(login, known, facts.commits);
  const names = new Set([login, known?.name?.trim().toLowerCase() ?? ""].filter((n) => n !== ""));
  for (const hand of hands) {
    if (isSamePerson(hand.identity, login, emails, names)) reasons.push(hand.reason);
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
function reviewerEmails(login: string, known: ReviewerFacts | undefined, commits: readonly CommitFacts[]): Set<string> {
  const emails = new Set<string>();
  if (known?.email) emails.add(known.email.trim().toLowerCase());
  for (const c of commits) {
    for (const id of [c.author, c.committer]) {
      if (id.login?.toLowerCase() === login && id.email !== "") emails.add(id.email.trim().toLowerCase());
    }
  }
  return emails;
}

function isSamePerson(identity: Identity, login: string, emails: ReadonlySet<string>, names: ReadonlySet<string>): boolean {
  if (identity.login !== null && identity.login.toLowerCase() === login) return true;
  const email = identity.email.trim().toLowerCase();
  if (email !== "" && (noreplyLogin(email)?.toLowerCase() === login || emails.has(email))) return true;
  const name = identity.name.trim().toLowerCase();
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
