// Making a branch require what the gate needs: both checks (pinned to the app when its id is known),
// a pull request review with stale approvals dismissed and the latest push approved, and no
// exception for admins. Classic branch protection by default, a repository ruleset on request.
// Idempotent: the plan is computed from what GitHub has now, and is empty when nothing is missing.
// Everything else already configured on the branch is kept as it is.
import { REQUIRED_CHECKS, statusOf, type RepoName, type Requester } from "./protection.js";

export const RULESET_NAME = "Ranex Gate";

export interface ProtectOptions {
  repo: RepoName;
  branch: string;
  /** Pins both checks to this GitHub App, so no other app or status can satisfy them. */
  appId: number | null;
  ruleset: boolean;
}

export interface ProtectionPlan {
  /** What would change, one line each; empty when the branch already has everything. */
  changes: string[];
  method: "PUT" | "POST";
  path: string;
  body: Record<string, unknown>;
}

export async function planProtection(octokit: Requester, options: ProtectOptions): Promise<ProtectionPlan> {
  return options.ruleset ? planRuleset(octokit, options) : planClassic(octokit, options);
}

export async function applyProtection(octokit: Requester, plan: ProtectionPlan): Promise<void> {
  if (plan.changes.length === 0) return;
  await octokit.request(`${plan.method} ${plan.path}`, plan.body);
}

interface Named { login?: string; slug?: string | null }
const logins = (xs: readonly (Named | null)[] | undefined) => (xs ?? []).map((x) => x?.login ?? "").filter((x) => x !== "");
const slugs = (xs: readonly (Named | null)[] | undefined) => (xs ?? []).map((x) => x?.slug ?? "").filter((x) => x !== "");

async function planClassic(octokit: Requester, { repo, branch, appId }: ProtectOptions): Promise<ProtectionPlan> {
  let current = null;
  try {
    current = (await octokit.request("GET /repos/{owner}/{repo}/branches/{branch}/protection", { ...repo, branch })).data;
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    // 404 is both "not protected" and "no such branch": tell them apart before protecting nothing.
    await octokit.request("GET /repos/{owner}/{repo}/branches/{branch}", { ...repo, branch });
  }
  const changes: string[] = [];
  const rsc = current?.required_status_checks;
  const checks = [...(rsc?.checks ?? []).map((c) => ({ context: c.context, app_id: c.app_id }))];
  for (const context of rsc?.contexts ?? []) if (!checks.some((c) => c.context === context)) checks.push({ context, app_id: null });
  for (const context of REQUIRED_CHECKS) {
    const found = checks.find((c) => c.context === context);
    if (found === undefined) {
      checks.push({ context, app_id: appId });
      changes.push(`require the status check ${context}${appId === null ? "" : ` from app ${appId}`}`);
    } else if (appId !== null && found.app_id !== appId) {
      changes.push(`pin the status check ${context} to app ${appId} (was ${found.app_id === null ? "any source" : `app ${found.app_id}`})`);
      found.app_id = appId;
    }
  }
  if (current?.enforce_admins?.enabled !== true) changes.push("enforce the rules for administrators too");
  const reviews = current?.required_pull_request_reviews;
  if (reviews === undefined || reviews === null) changes.push("require an approving pull request review");
  if (reviews?.dismiss_stale_reviews !== true) changes.push("dismiss approvals when new commits are pushed");
  if (reviews?.require_last_push_approval !== true) changes.push("require approval of the most recent push");
  if ((reviews?.required_approving_review_count ?? 0) < 1) changes.push("require at least one approving review");
  const restrictions = current?.restrictions;
  const body: Record<string, unknown> = {
    required_status_checks: {
      strict: rsc?.strict ?? false, contexts: [],
      checks: checks.map((c) => (c.app_id === null || c.app_id === undefined ? { context: c.context } : { context: c.context, app_id: c.app_id })),
    },
    enforce_admins: true,
    required_pull_request_reviews: {
      dismiss_stale_reviews: true,
      require_code_owner_reviews: reviews?.require_code_owner_reviews ?? false,
      required_approving_review_count: Math.max(1, reviews?.required_approving_review_count ?? 1),
      require_last_push_approval: true,
      ...(reviews?.dismissal_restrictions === undefined ? {} : {
        dismissal_restrictions: { users: logins(reviews.dismissal_restrictions.users), teams: slugs(reviews.dismissal_restrictions.teams), apps: slugs(reviews.dismissal_restrictions.apps) },
      }),
    },
    restrictions: restrictions === undefined || restrictions === null ? null
      : { users: logins(restrictions.users), teams: slugs(restrictions.teams), apps: slugs(restrictions.apps) },
    // PUT replaces the whole protection: the settings the gate does not care about are sent back unchanged.
    required_linear_history: current?.required_linear_history?.enabled ?? false,
    allow_force_pushes: current?.allow_force_pushes?.enabled ?? false,
    allow_deletions: current?.allow_deletions?.enabled ?? false,
    block_creations: current?.block_creations?.enabled ?? false,
    required_conversation_resolution: current?.required_conversation_resolution?.enabled ?? false,
    lock_branch: current?.lock_branch?.enabled ?? false,
    allow_fork_syncing: current?.allow_fork_syncing?.enabled ?? false,
  };
  const path = `/repos/${enc(repo.owner)}/${enc(repo.repo)}/branches/${enc(branch)}/protection`;
  return { changes, method: "PUT", path, body };
}

interface RuleLike { type: string; parameters?: Record<string, unknown> }

async function planRuleset(octokit: Requester, { repo, branch, appId }: ProtectOptions): Promise<ProtectionPlan> {
  const list = (await octokit.request("GET /repos/{owner}/{repo}/rulesets", { ...repo, per_page: 100, includes_parents: false })).data;
  const mine = list.find((r) => r.name === RULESET_NAME && r.source_type !== "Organization");
  const ref = `refs/heads/${branch}`;
  const statusChecks = REQUIRED_CHECKS.map((context) => (appId === null ? { context } : { context, integration_id: appId }));
  const review = {
    required_approving_review_count: 1, dismiss_stale_reviews_on_push: true, require_last_push_approval: true,
    require_code_owner_review: false, required_review_thread_resolution: false,
  };
  const changes: string[] = [];
  let include = [ref];
  let existingRules: RuleLike[] = [];
  if (mine === undefined) {
    changes.push(`create the ruleset "${RULESET_NAME}" for ${branch}: require ${REQUIRED_CHECKS.join(" and ")}${appId === null ? "" : ` from app ${appId}`}, an approving review of the latest push, stale approvals dismissed, no bypass`);
  } else {
    const current = (await octokit.request("GET /repos/{owner}/{repo}/rulesets/{ruleset_id}", { ...repo, ruleset_id: mine.id })).data;
    const included = current.conditions?.ref_name?.include ?? [];
    include = included.includes(ref) ? [...included] : [...included, ref];
    if (!included.includes(ref)) changes.push(`apply the ruleset "${RULESET_NAME}" to ${branch}`);
    if (current.enforcement !== "active") changes.push(`make the ruleset "${RULESET_NAME}" active (was ${current.enforcement})`);
    if ((current.bypass_actors ?? []).length > 0) changes.push("remove the ruleset's bypass actors, so admins are held to it too");
    existingRules = (current.rules ?? []) as RuleLike[];
    const checks = existingRules.find((r) => r.type === "required_status_checks")?.parameters?.required_status_checks as { context: string; integration_id?: number }[] | undefined;
    for (const want of statusChecks) {
      const has = checks?.find((c) => c.context === want.context);
      if (has === undefined || (appId !== null && has.integration_id !== appId)) changes.push(`require the status check ${want.context}${appId === null ? "" : ` from app ${appId}`}`);
    }
    const pr = existingRules.find((r) => r.type === "pull_request")?.parameters;
    if (pr === undefined || pr.dismiss_stale_reviews_on_push !== true || pr.require_last_push_approval !== true || Number(pr.required_approving_review_count ?? 0) < 1) {
      changes.push("require an approving review of the most recent push, dismissing stale approvals");
    }
  }
  // Other rules in the gate's own ruleset are kept; its two rules are set to what the gate needs.
  const otherRules = existingRules.filter((r) => r.type !== "required_status_checks" && r.type !== "pull_request");
  const prParams = existingRules.find((r) => r.type === "pull_request")?.parameters ?? {};
  const body = {
    name: RULESET_NAME, target: "branch", enforcement: "active", bypass_actors: [],
    conditions: { ref_name: { include, exclude: [] } },
    rules: [
      ...otherRules,
      { type: "pull_request", parameters: { ...prParams, ...review, required_approving_review_count: Math.max(1, Number(prParams.required_approving_review_count ?? 1)) } },
      { type: "required_status_checks", parameters: { strict_required_status_checks_policy: false, required_status_checks: statusChecks } },
    ],
  };
  const base = `/repos/${enc(repo.owner)}/${enc(repo.repo)}/rulesets`;
  return mine === undefined ? { changes, method: "POST", path: base, body } : { changes, method: "PUT", path: `${base}/${mine.id}`, body };
}

function enc(part: string): string {
  return encodeURIComponent(part);
}
