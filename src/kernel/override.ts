// Who may override a FAIL (`/ranex override <reason>`, issue 23), as a pure function of plain facts.
// The same hands rule as an approval (DESIGN.md, invariant 4: author, committers, co-authors,
// pushers, operators, bots and the app are refused), and stricter on role: only `maintain` or
// `admin`, because an override takes the measured verdict's place on the merge button.
import { isSamePerson, reviewerEmails, unknownHands, type ReviewerFacts } from "./approval.js";
import { handsInTheChange, type CommitFacts, type PushFacts } from "./hands.js";
import { comparableName } from "./identity.js";

export const OVERRIDE_ROLES: ReadonlySet<string> = new Set(["admin", "maintain"]);

/** A reason is at least a sentence: a few words, not "ok" or "lgtm". */
export const MIN_REASON_WORDS = 4;

export interface OverrideFacts {
  requester: { login: string; type: string } & ReviewerFacts;
  author: string;
  commits: readonly CommitFacts[];
  pushes: readonly PushFacts[];
  operators: readonly string[];
  appLogin: string | null;
  commitCount: number | null;
  noreplyHosts?: readonly string[];
  /** The base's `override` section; null when the base's policy is invalid (nobody may override then). */
  policy: { allowed: boolean; teams: readonly string[] } | null;
  reason: string;
}

/** Every reason the requester may not override, in the order a person should read them; empty when they may. */
export function overrideRefusals(facts: OverrideFacts): string[] {
  const { requester } = facts;
  const login = requester.login.replace(/^@/, "").toLowerCase();
  const who = `@${requester.login}`;
  if (facts.policy === null) return ["the base's `.github/ranex.yml` is not valid, so who may override cannot be told: fix the policy on the base branch first"];
  if (!facts.policy.allowed) return ["overrides are turned off for this repository (`override.allowed: false` in `.github/ranex.yml`)"];
  const reasons: string[] = [];
  if (facts.appLogin !== null && login === facts.appLogin.toLowerCase()) reasons.push(`${who} is this app`);
  if (requester.type !== "User" || login.endsWith("[bot]")) reasons.push(`${who} is not a human account (type ${requester.type}): an agent must never pass itself`);
  const hosts = facts.noreplyHosts ?? ["github.com"];
  const { hands } = handsInTheChange({ author: facts.author, commits: facts.commits, pushes: facts.pushes, operators: facts.operators, noreplyHosts: hosts });
  const emails = reviewerEmails(login, requester, facts.commits);
  const names = new Set([login, comparableName(requester.name ?? "")].filter((n) => n !== ""));
  for (const hand of hands) {
    if (isSamePerson(hand.identity, login, emails, names, hosts)) reasons.push(`${who} ${hand.reason}`);
  }
  reasons.push(...unknownHands(facts));
  if (!OVERRIDE_ROLES.has(requester.role ?? "")) {
    reasons.push(`${who} ${requester.role === null ? "is not a collaborator" : `has ${requester.role} permission`}; an override needs maintain or admin`);
  }
  if (facts.policy.teams.length > 0 && !requester.teams.some((t) => facts.policy?.teams.some((p) => same(p, t)))) {
    reasons.push(`${who} is not in ${facts.policy.teams.join(", ")}, the teams \`override.teams\` names`);
  }
  const badReason = reasonProblem(facts.reason);
  if (badReason !== null) reasons.push(badReason);
  return [...new Set(reasons)];
}

/** Why a reason is not enough, or null: an override needs at least a sentence saying why the gate is wrong. */
export function reasonProblem(reason: string): string | null {
  const words = reason.trim().split(/\s+/u).filter((w) => w !== "");
  if (words.length >= MIN_REASON_WORDS) return null;
  return `an override needs its reason, at least a sentence (${MIN_REASON_WORDS} words or more): \`/ranex override <why the gate is wrong about this commit>\``;
}

const same = (a: string, b: string) => a.replace(/^@/, "").toLowerCase() === b.replace(/^@/, "").toLowerCase();
