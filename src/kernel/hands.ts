// Who had a hand in a pull request's change: its author, the authors, committers and co-authors of
// its commits, the people who pushed them, and the people who run the agents. A merge that only
// brings the base in (GitHub's "Update branch", or a person merging the base) is nobody's hand.
import { coAuthorsOf, isWebFlow, noreplyLogin } from "./identity.js";

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
  /** Parent shas, in order. */
  parents?: readonly string[];
  /**
   * For a merge: the paths this commit changes relative to each parent, keyed by parent sha; null
   * for a parent whose comparison could not be read in full. Only needed for merges of the base.
   */
  changedFrom?: Readonly<Record<string, readonly string[] | null>>;
}

/** One push to the pull request's head branch, and who made it. */
export interface PushFacts {
  login: string;
  /** The head before the push, when known. */
  before: string | null;
  /** The head the push left; null when unknown. */
  after: string | null;
  /** Where it is known from: `synchronize` (webhook sender), `force-push` (timeline). */
  via: string;
}

export interface HandsInput {
  author: string;
  commits: readonly CommitFacts[];
  pushes: readonly PushFacts[];
  operators: readonly string[];
  noreplyHosts: readonly string[];
}

export interface Hand {
  /** How people read it: `@login`, or `Name <email>` when GitHub matched no account. */
  label: string;
  identity: Identity;
  reason: string;
}

export function handsInTheChange(input: HandsInput): { hands: Hand[]; baseMerges: string[] } {
  const hands: Hand[] = [{ label: `@${input.author}`, identity: { login: input.author, name: "", email: "" }, reason: "opened this pull request" }];
  const listed = new Set(input.commits.map((c) => c.sha));
  const baseMerges = new Set(input.commits.filter((c) => bringsOnlyBase(c, listed)).map((c) => c.sha));
  for (const commit of input.commits) {
    if (baseMerges.has(commit.sha)) continue;
    const sha7 = commit.sha.slice(0, 7);
    hands.push({ label: labelOf(commit.author), identity: commit.author, reason: `authored commit ${sha7}` });
    if (!isWebFlow(commit.committer, input.noreplyHosts)) {
      hands.push({ label: labelOf(commit.committer), identity: commit.committer, reason: `committed ${sha7}` });
    }
    for (const co of coAuthorsOf(commit.message)) {
      const login = noreplyLogin(co.email, input.noreplyHosts);
      hands.push({ label: login === null ? `${co.name} <${co.email}>` : `@${login}`, identity: { login, ...co }, reason: `is a Co-authored-by of commit ${sha7}` });
    }
  }
  for (const push of input.pushes) {
    if (pushBroughtOnlyBase(push, input.commits, baseMerges)) continue;
    const login = push.login.replace(/^@/, "");
    const what = push.after === null ? "" : ` (${push.after.slice(0, 7)})`;
    hands.push({ label: `@${login}`, identity: { login, name: "", email: "" }, reason: `pushed commits to this pull request${what}` });
  }
  for (const operator of input.operators) {
    const login = operator.replace(/^@/, "");
    hands.push({ label: `@${login}`, identity: { login, name: "", email: "" }, reason: "runs the agents (agents.operators in .github/ranex.yml)" });
  }
  // One line per person and reason, in the order found.
  const seen = new Set<string>();
  const unique = hands.filter((h) => {
    const key = `${h.label.toLowerCase()}\u0000${h.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { hands: unique, baseMerges: [...baseMerges] };
}

/**
 * A merge adds nothing the base lacks when one parent is outside the pull request's commits (so it
 * is the base's history: GitHub lists every commit the head has and the base lacks) and no path the
 * merge changes relative to the pull request's side differs from that base parent: every path of
 * the merge is then either the pull request's own or the base's.
 */
export function bringsOnlyBase(commit: CommitFacts, listed: ReadonlySet<string>): boolean {
  const parents = commit.parents ?? [];
  if (parents.length !== 2) return false;
  const [first = "", second = ""] = parents;
  const base = !listed.has(second) ? second : !listed.has(first) ? first : null;
  if (base === null) return false;
  const side = base === second ? first : second;
  const fromSide = commit.changedFrom?.[side];
  const fromBase = commit.changedFrom?.[base];
  if (fromSide === undefined || fromSide === null || fromBase === undefined || fromBase === null) return false;
  const changedFromBase = new Set(fromBase);
  return fromSide.every((path) => !changedFromBase.has(path));
}

/**
 * A push makes its pusher a hand unless everything it brought into the pull request is merges of
 * the base. A push whose head is no longer in the pull request still counts: its work may live on
 * in rebased commits.
 */
function pushBroughtOnlyBase(push: PushFacts, commits: readonly CommitFacts[], baseMerges: ReadonlySet<string>): boolean {
  if (push.after === null) return false;
  const bySha = new Map(commits.map((c) => [c.sha, c]));
  if (!bySha.has(push.after)) return false;
  const before = push.before === null ? new Set<string>() : reachable(push.before, bySha);
  const brought = [...reachable(push.after, bySha)].filter((sha) => !before.has(sha));
  return brought.length > 0 && brought.every((sha) => baseMerges.has(sha));
}

/** The listed commits reachable from `sha` through listed parents. */
function reachable(sha: string, bySha: ReadonlyMap<string, CommitFacts>): Set<string> {
  const seen = new Set<string>();
  const todo = [sha];
  while (todo.length > 0) {
    const next = todo.pop() ?? "";
    const commit = bySha.get(next);
    if (commit === undefined || seen.has(next)) continue;
    seen.add(next);
    todo.push(...(commit.parents ?? []));
  }
  return seen;
}

function labelOf(identity: Identity): string {
  return identity.login !== null && identity.login !== "" ? `@${identity.login}` : `${identity.name} <${identity.email}>`;
}
