// Who may ask for a re-judgment: people with write, maintain or admin permission who did not open
// the pull request and are not bots. An agent must not re-roll a flaky suite until it passes.
import type { GitHub, RepoRef } from "../check-runs.js";

export interface Requester {
  login: string;
  /** `User`, `Bot`, `Organization`, as GitHub reports the account type. */
  type: string;
}

export type Authorization = { allowed: true; role: string } | { allowed: false; reason: string };

const ALLOWED_ROLES = new Set(["admin", "maintain", "write"]);

export async function mayRejudge(octokit: GitHub, repo: RepoRef, requester: Requester, prAuthor: string): Promise<Authorization> {
  if (requester.type === "Bot" || requester.login.endsWith("[bot]")) {
    return { allowed: false, reason: `@${requester.login} is a bot, and bots may not ask for a re-judgment: an agent must not re-roll its checks until they pass.` };
  }
  if (requester.login.toLowerCase() === prAuthor.toLowerCase()) {
    return { allowed: false, reason: `@${requester.login} opened this pull request, and its author may not ask for a re-judgment of it: ask a maintainer.` };
  }
  let role: string;
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: requester.login });
    // `permission` folds maintain into write and triage into read; `role_name` keeps them apart.
    role = data.role_name || data.permission;
  } catch (err) {
    if (statusOf(err) === 404) return { allowed: false, reason: `@${requester.login} is not a collaborator on this repository: a re-judgment needs write, maintain or admin permission.` };
    throw err;
  }
  if (!ALLOWED_ROLES.has(role)) {
    return { allowed: false, reason: `@${requester.login} has ${role} permission; a re-judgment needs write, maintain or admin.` };
  }
  return { allowed: true, role };
}

function statusOf(err: unknown): unknown {
  return typeof err === "object" && err !== null && "status" in err ? (err as { status: unknown }).status : undefined;
}
