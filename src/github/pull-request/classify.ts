// Whose pull request is this, in a way the agent cannot take back (issue 14):
// - the base's policy decides (author, label, branch), and once a PR was an agent's it stays one
//   for its life (recorded in the data dir), whatever its labels or base say later;
// - `ranex:` labels belong to the app and count only where the app set them;
// - GitHub attaches checks to a commit, not a PR: before a head is called "not an agent's", every
//   open PR that has it as head is asked the same question under the policy of its own base.
import { readBasePolicy, agentRule, type BasePolicy } from "./agents.js";
import type { GitHub } from "../check-runs.js";
import type { PullRequestStore } from "./store.js";
import { fullName, targetOf, type PullTarget } from "./target.js";

/** Labels under this prefix are the app's own (`ranex:escalated`). */
export const APP_LABEL_PREFIX = "ranex:";

export function isAppLabel(label: string | undefined): boolean {
  return label !== undefined && label.toLowerCase().startsWith(APP_LABEL_PREFIX);
}

export type Classification =
  | { agent: true; rule: string; recorded: boolean }
  | { agent: false; why: string };

/** The PR's labels that count: an app label only when the app itself set it on this PR. */
export function honouredLabels(store: PullRequestStore, target: PullTarget): string[] {
  if (!target.labels.some((l) => isAppLabel(l))) return target.labels;
  const mine = new Set(store.appLabels(fullName(target.repo), target.number).map((l) => l.toLowerCase()));
  return target.labels.filter((l) => !isAppLabel(l) || mine.has(l.toLowerCase()));
}

export function classify(store: PullRequestStore, target: PullTarget, policy: BasePolicy): Classification {
  // An invalid policy is judged anyway: the judge reports each error on its line, as a failure.
  if (policy.kind === "invalid") return { agent: true, rule: "the base's policy is invalid", recorded: false };
  if (policy.kind === "valid") {
    const rule = agentRule(policy.policy.agents, { author: target.author, labels: target.labels, headRef: target.headRef });
    if (rule !== null) return { agent: true, rule, recorded: false };
  }
  const record = store.agentRecord(fullName(target.repo), target.number);
  if (record !== null) {
    return { agent: true, rule: `${record.rule} (recorded on ${record.head.slice(0, 7)}: an agent's pull request stays one)`, recorded: true };
  }
  if (policy.kind === "absent") {
    return { agent: false, why: `The base commit \`${target.base.slice(0, 7)}\` has no \`.github/ranex.yml\`, so no author, label or branch is marked as an agent's.` };
  }
  return { agent: false, why: `Neither the author \`${target.author}\`, the labels, nor the branch \`${target.headRef}\` match \`agents\` in the base's \`.github/ranex.yml\`.` };
}

export interface AgentHead {
  target: PullTarget;
  policy: BasePolicy;
  rule: string;
}

/**
 * An open agent PR, other than `target`, whose head is `target.head`: GitHub's list of PRs for the
 * commit, plus the PRs this app ever judged that commit for. Null when there is none.
 */
export async function agentPullWithHead(octokit: GitHub, store: PullRequestStore, target: PullTarget): Promise<AgentHead | null> {
  const listed = await octokit.paginate(octokit.rest.repos.listPullRequestsAssociatedWithCommit, { ...target.repo, commit_sha: target.head, per_page: 100 });
  const candidates: PullTarget[] = listed
    .filter((pr) => pr.state === "open" && pr.head.sha === target.head && pr.number !== target.number)
    .map((pr) => targetOf(pr, pr.base.repo));
  const seen = new Set([target.number, ...candidates.map((c) => c.number)]);
  for (const number of store.agentPullsWithHead(fullName(target.repo), target.head)) {
    if (seen.has(number)) continue;
    const { data } = await octokit.rest.pulls.get({ ...target.repo, pull_number: number });
    if (data.state === "open" && data.head.sha === target.head) candidates.push(targetOf(data, data.base.repo));
  }
  const policies = new Map<string, BasePolicy>();
  for (const candidate of candidates) {
    const policy = policies.get(candidate.base) ?? await readBasePolicy(octokit, candidate.repo, candidate.base);
    policies.set(candidate.base, policy);
    const labelled = { ...candidate, labels: honouredLabels(store, candidate) };
    const decision = classify(store, labelled, policy);
    if (decision.agent) return { target: labelled, policy, rule: decision.rule };
  }
  return null;
}
