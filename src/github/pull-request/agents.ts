// Is this pull request an agent's? Decided by the `agents` section of the BASE commit's policy
// (invariant 7), read through the contents API: it answers before any git work, so a person's PR
// never waits for (or pays for) a fetch just to be told it is not ours to judge.
import picomatch from "picomatch";
import { parsePolicy, POLICY_PATH, type Policy } from "../../policy/index.js";
import type { GitHub, RepoRef } from "../check-runs.js";

export interface PullFacts {
  author: string;
  labels: readonly string[];
  headRef: string;
}

export type BasePolicy =
  | { kind: "absent" }
  | { kind: "invalid" }
  | { kind: "valid"; policy: Policy };

export async function readBasePolicy(octokit: GitHub, repo: RepoRef, base: string): Promise<BasePolicy> {
  let response;
  try {
    response = await octokit.rest.repos.getContent({ ...repo, path: POLICY_PATH, ref: base });
  } catch (err) {
    if (isNotFound(err)) return { kind: "absent" };
    throw err;
  }
  const file = response.data;
  if (Array.isArray(file) || file.type !== "file" || !("content" in file)) return { kind: "invalid" };
  const parsed = parsePolicy(Buffer.from(file.content, "base64").toString("utf8"), POLICY_PATH);
  // An invalid policy is judged anyway: the judge reports each error on its line, as a failure.
  return parsed.ok ? { kind: "valid", policy: parsed.policy } : { kind: "invalid" };
}

/** Which rule marks the PR as an agent's, or null when none does. */
export function agentRule(agents: Policy["agents"], pr: PullFacts): string | null {
  if (agents.authors.includes(pr.author)) return `author ${pr.author}`;
  const label = pr.labels.find((l) => agents.labels.includes(l));
  if (label !== undefined) return `label ${label}`;
  const branch = agents.branches.find((glob) => picomatch(glob, { dot: true })(pr.headRef));
  if (branch !== undefined) return `branch ${pr.headRef} matches ${branch}`;
  return null;
}

function isNotFound(err: unknown): boolean {
  return typeof err === "object" && err !== null && "status" in err && (err as { status: unknown }).status === 404;
}

/**
 * The agent a pull request is counted under on the agents page (issue 23): the label that marked it
 * (`label:<name>`), else its author's login. Read from the rule classify() decided with.
 */
export function agentIdentity(rule: string, author: string): string {
  const label = /^label (.+?)(?: \(recorded on [0-9a-f]+: an agent's pull request stays one\))?$/.exec(rule);
  return label === null ? author : `label:${label[1]}`;
}
