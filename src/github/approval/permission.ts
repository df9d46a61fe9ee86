// A person's role on a repository, read the way GitHub defines it (see `effectiveRole`): one helper
// for approvals and for who may ask for a re-judgment, so the two never read it differently.
import { effectiveRole } from "../../kernel/approval.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import { statusOf } from "../protection/protection.js";

/** `admin`, `maintain`, `write`, `triage` or `read`; null when not a collaborator. Other errors throw. */
export async function roleOf(octokit: GitHub, repo: RepoRef, login: string): Promise<string | null> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: login });
    return effectiveRole(data.permission, data.role_name);
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}

export const WRITE_ROLES: ReadonlySet<string> = new Set(["admin", "maintain", "write"]);
