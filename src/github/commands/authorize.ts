// Who may ask for a re-judgment (`/ranex rejudge`, the Re-run button): people with write, maintain
// or admin permission (read as GitHub defines it: a custom role that inherits write counts) who did
// not open the pull request, do not run the agents (`agents.operators` of the base's policy), and
// are not bots. An agent, or the person driving it, must not re-roll a flaky suite until it passes.
import { readBasePolicy } from "../pull-request/agents.js";
import { roleOf, WRITE_ROLES } from "../approval/permission.js";
import type { GitHub, RepoRef } from "../check-runs.js";

export interface Requester {
  login: string;
  /** `User`, `Bot`, `Organization`, as GitHub reports the account type. */
  type: string;
}

/** The pull request a re-judgment is asked for: its author, and the base commit whose policy names the operators. */
export interface RejudgeSubject {
  author: string;
  base: string;
}

export type Authorization = { allowed: true; role: string } | { allowed: false; reason: string };

const same = (a: string, b: string) => a.replace(/^@/, "").toLowerCase() === b.replace(/^@/, "").toLowerCase();

export async function mayRejudge(octokit: GitHub, repo: RepoRef, requester: Requester, pull: RejudgeSubject): Promise<Authorization> {
  const who = `@${requester.login}`;
  if (requester.type === "Bot" || requester.login.endsWith("[bot]")) {
    return { allowed: false, reason: `${who} is a bot, and bots may not ask for a re-judgment: an agent must not re-roll its checks until they pass.` };
  }
  if (same(requester.login, pull.author)) {
    return { allowed: false, reason: `${who} opened this pull request, and its author may not ask for a re-judgment of it: ask a maintainer.` };
  }
  const policy = await readBasePolicy(octokit, repo, pull.base);
  if (policy.kind === "invalid") {
    return { allowed: false, reason: `the base's \`.github/ranex.yml\` is not valid, so who runs the agents cannot be told: fix the policy on the base branch first.` };
  }
  if (policy.kind === "valid" && policy.policy.agents.operators.some((o) => same(o, requester.login))) {
    return { allowed: false, reason: `${who} runs the agents (\`agents.operators\` in \`.github/ranex.yml\`), and may not ask for a re-judgment of their work: ask a maintainer who does not.` };
  }
  const role = await roleOf(octokit, repo, requester.login);
  if (role === null) return { allowed: false, reason: `${who} is not a collaborator on this repository: a re-judgment needs write, maintain or admin permission.` };
  if (!WRITE_ROLES.has(role)) return { allowed: false, reason: `${who} has ${role} permission; a re-judgment needs write, maintain or admin.` };
  return { allowed: true, role };
}
