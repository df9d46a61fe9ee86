// Making a branch require what the gate needs: both checks (pinned to the app when its id is known),
// a pull request review with stale approvals dismissed and the latest push approved, no exception
// for admins, and one of the two ways that make "judged" equal "lands": branches up to date before
// merging (strict checks: the judged head already contains the base tip), or a merge queue (the
// queue's group commit, exactly what lands, is judged and approved; see ../merge-queue). Classic
// branch protection by default, a repository ruleset on request; a merge queue needs a ruleset.
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
  /** How "judged" is made to equal "lands"; `up-to-date` when not given. */
  lands?: Lands;
}

export type Lands = "up-to-date" | "merge-queue";

/**
 * The merge queue the gate asks for when the branch has none: GitHub's own defaults. Any merge
 * method works: the gate finds a group's pull requests by their queue branches, not by its commits.
 */
export const DEFAULT_MERGE_QUEUE = {
  check_response_timeout_minutes: 60, grouping_strategy: "ALLGREEN", max_entries_to_build: 5, max_entries_to_merge: 5,
  merge_method: "MERGE", min_entries_to_merge: 1, min_entries_to_merge_wait_minutes: 5,
} as const;

const MERGE_QUEUE = "require a merge queue, so the queue's group commit, exactly what lands, is judged and approved";
const UP_TO_DATE = "require branches to be up to date before merging, so the judged head already contains the base it lands on";

export interface ProtectionPlan {
  /** What would change, one line each; empty when the branch already has everything. */
  changes: string[];
  method: "PUT" | "POST";
  path: string;
  body: Record<string, unknown>;
}

export async function planProtection(octokit: Requester, options: ProtectOptions): Promise<ProtectionPlan> {
  // Classic branch protection has no merge queue in the REST API: only a ruleset can require one.
  return options.ruleset || options.lands === "merge-queue" ? planRuleset(octokit, options) : planClassic(octokit, options);
}

export async function applyProtection(octokit: Requester, plan: ProtectionPlan): Promise<void> {
  if (plan.changes.length === 0) return;
  await octokit.request(`${plan.method} ${plan.path}`, plan.body);
}

interface Named { login?: string; slug?: string | null }
const logins = (xs: readonly (Named | null)[] | undefined) => (xs ?? []).map((x) => x?.login ?? "").filter((x) => x !== "");
const slugs = (xs: readonly (Named | null)[] | undefined) => (xs ?? []).map((x) => x?.slug ?? "").filter((x) => x !== "");

async function planClassic(octokit: Requester, { repo, branch, appId, lands = "up-to-date" }: ProtectOptions): Promise<ProtectionPlan> {
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
  const strict = lands === "up-to-date" ? true : rsc?.strict ?? false;
  if (strict && rsc?.strict !== true) changes.push(UP_TO_DATE);
  if (current?.enforce_admins?.enabled !== true) changes.push("enforce the rules for administrators too");
  const reviews = current?.required_pull_request_reviews;
  if (reviews === undefined || reviews === null) changes.push("require an approving pull request review");
  if (reviews?.dismiss_stale_reviews !== true) changes.push("dismiss approvals when new commits are pushed");
  if (reviews?.require_last_push_approval !== true) changes.push("require approval of the most recent push");
  if ((reviews?.required_approving_review_count ?? 0) < 1) changes.push("require at least one approving review");
  const restrictions = current?.restrictions;
  const body: Record<string, unknown> = {
    required_status_checks: {
      strict, contexts: [],
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

async function planRuleset(octokit: Requester, { repo, branch, appId, lands = "up-to-date" }: ProtectOptions): Promise<ProtectionPlan> {
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
    if (lands === "up-to-date") changes.push(UP_TO_DATE);
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
    const strictNow = existingRules.find((r) => r.type === "required_status_checks")?.parameters?.strict_required_status_checks_policy === true;
    if (lands === "up-to-date" && !strictNow) changes.push(UP_TO_DATE);
  }
  // A merge queue may come from another ruleset on the branch (the owner's own): then none is added.
  const queued = lands === "merge-queue" && (existingRules.some((r) => r.type === "merge_queue") || await branchHasMergeQueue(octokit, repo, branch));
  if (lands === "merge-queue" && !queued) changes.push(MERGE_QUEUE);
  // Other rules in the gate's own ruleset are kept; its two rules are set to what the gate needs, and
  // a merge queue it already has stays as it is (its settings are the owner's).
  const otherRules = existingRules.filter((r) => r.type !== "required_status_checks" && r.type !== "pull_request");
  const strict = lands === "up-to-date" || existingRules.find((r) => r.type === "required_status_checks")?.parameters?.strict_required_status_checks_policy === true;
  const prParams = existingRules.find((r) => r.type === "pull_request")?.parameters ?? {};
  const body = {
    name: RULESET_NAME, target: "branch", enforcement: "active", bypass_actors: [],
    conditions: { ref_name: { include, exclude: [] } },
    rules: [
      ...otherRules,
      ...(lands === "merge-queue" && !queued ? [{ type: "merge_queue", parameters: { ...DEFAULT_MERGE_QUEUE } }] : []),
      { type: "pull_request", parameters: { ...prParams, ...review, required_approving_review_count: Math.max(1, Number(prParams.required_approving_review_count ?? 1)) } },
      { type: "required_status_checks", parameters: { strict_required_status_checks_policy: strict, required_status_checks: statusChecks } },
    ],
  };
  const base = `/repos/${enc(repo.owner)}/${enc(repo.repo)}/rulesets`;
  return mine === undefined ? { changes, method: "POST", path: base, body } : { changes, method: "PUT", path: `${base}/${mine.id}`, body };
}

async function branchHasMergeQueue(octokit: Requester, repo: RepoName, branch: string): Promise<boolean> {
  try {
    const rules = (await octokit.request("GET /repos/{owner}/{repo}/rules/branches/{branch}", { ...repo, branch, per_page: 100 })).data;
    return rules.some((rule) => rule.type === "merge_queue");
  } catch (err) {
    if (statusOf(err) === 404) return false;
    throw err;
  }
}

function enc(part: string): string {
  return encodeURIComponent(part);
}
