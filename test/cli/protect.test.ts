import type nock from "nock";
import { describe, expect, it } from "vitest";
import { githubApi, requests, useStrictNock, type Fixture } from "../helpers/probot.js";
import { ranex } from "./cli-capture.js";

useStrictNock();

const REPO = "/repos/octo/widgets";
const ENV = { GITHUB_TOKEN: "ghp_test" };
const PROTECTION = `${REPO}/branches/main/protection`;

/** GET .../protection as GitHub answers it for a branch protected with this PUT body. */
function protectionAfter(put: Fixture): Fixture {
  const enabled = (value: boolean) => ({ enabled: value });
  return {
    url: "u",
    required_status_checks: { url: "u", strict: put.required_status_checks.strict, contexts: put.required_status_checks.checks.map((c: Fixture) => c.context), checks: put.required_status_checks.checks.map((c: Fixture) => ({ context: c.context, app_id: c.app_id ?? null })), contexts_url: "u" },
    enforce_admins: { url: "u", enabled: put.enforce_admins },
    required_pull_request_reviews: { url: "u", ...put.required_pull_request_reviews },
    required_linear_history: enabled(put.required_linear_history), allow_force_pushes: enabled(put.allow_force_pushes),
    allow_deletions: enabled(put.allow_deletions), block_creations: enabled(put.block_creations),
    required_conversation_resolution: enabled(put.required_conversation_resolution), lock_branch: enabled(put.lock_branch),
    allow_fork_syncing: enabled(put.allow_fork_syncing),
  };
}

function unprotected(api: nock.Scope): void {
  api.get(PROTECTION).reply(404, { message: "Branch not protected" });
  api.get(`${REPO}/branches/main`).reply(200, { name: "main", protected: false });
}

describe("ranex protect (branch protection)", () => {
  it("protects an unprotected branch, then a second run changes nothing and says so", async () => {
    const api = githubApi();
    unprotected(api);
    api.put(PROTECTION).reply(200, {});
    const first = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--app-id", "123"], { env: ENV });
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toContain("octo/widgets main (branch protection): changed:\n  - require the status check ranex/judge from app 123\n  - require the status check ranex/approval from app 123\n  - require branches to be up to date before merging, so the judged head already contains the base it lands on\n  - enforce the rules for administrators too");
    const put = requests("PUT", /protection$/)[0]!.body as Fixture;
    expect(put).toMatchObject({
      required_status_checks: { strict: true, checks: [{ context: "ranex/judge", app_id: 123 }, { context: "ranex/approval", app_id: 123 }] },
      enforce_admins: true,
      required_pull_request_reviews: { dismiss_stale_reviews: true, require_last_push_approval: true, required_approving_review_count: 1 },
      restrictions: null,
    });

    api.get(PROTECTION).reply(200, protectionAfter(put));
    const second = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--app-id", "123"], { env: ENV });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("octo/widgets main (branch protection): already requires ranex/judge and ranex/approval, an approval of the latest push, no admin bypass and branches up to date before merging; nothing to change\n");
    expect(requests("PUT", /protection$/)).toHaveLength(1);
  });

  it("keeps what the branch already requires and adds only what is missing", async () => {
    const api = githubApi();
    const existing = protectionAfter({
      required_status_checks: { strict: true, checks: [{ context: "ci/build", app_id: 15368 }, { context: "ranex/judge" }] },
      enforce_admins: true, required_pull_request_reviews: { dismiss_stale_reviews: true, require_code_owner_reviews: true, required_approving_review_count: 2, require_last_push_approval: false },
      required_linear_history: true, allow_force_pushes: false, allow_deletions: false, block_creations: false, required_conversation_resolution: true, lock_branch: false, allow_fork_syncing: false,
    });
    api.get(PROTECTION).reply(200, existing);
    api.put(PROTECTION).reply(200, {});
    const { code, stdout } = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main"], { env: ENV });
    expect(code).toBe(0);
    expect(stdout).toContain("  - require the status check ranex/approval\n  - require approval of the most recent push\n");
    expect(stdout).toContain("note: the checks are not pinned to the app");
    expect(requests("PUT", /protection$/)[0]!.body).toMatchObject({
      required_status_checks: { strict: true, contexts: [], checks: [{ context: "ci/build", app_id: 15368 }, { context: "ranex/judge" }, { context: "ranex/approval" }] },
      required_pull_request_reviews: { require_code_owner_reviews: true, required_approving_review_count: 2, require_last_push_approval: true, dismiss_stale_reviews: true },
      required_linear_history: true, required_conversation_resolution: true,
    });
  });

  it("asks for branches up to date on a branch that has everything else, and changes only that", async () => {
    const api = githubApi();
    const everything = protectionAfter({
      required_status_checks: { strict: false, checks: [{ context: "ranex/judge", app_id: 123 }, { context: "ranex/approval", app_id: 123 }] },
      enforce_admins: true, required_pull_request_reviews: { dismiss_stale_reviews: true, require_code_owner_reviews: false, required_approving_review_count: 1, require_last_push_approval: true },
      required_linear_history: false, allow_force_pushes: false, allow_deletions: false, block_creations: false, required_conversation_resolution: false, lock_branch: false, allow_fork_syncing: false,
    });
    api.get(PROTECTION).reply(200, everything);
    api.put(PROTECTION).reply(200, {});
    const { code, stdout } = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--app-id", "123"], { env: ENV });
    expect(code).toBe(0);
    expect(stdout).toBe("octo/widgets main (branch protection): changed:\n  - require branches to be up to date before merging, so the judged head already contains the base it lands on\n");
    expect(requests("PUT", /protection$/)[0]!.body).toMatchObject({ required_status_checks: { strict: true } });
  });

  it("prints the change and sends nothing with --dry-run, reading the default branch when none is named", async () => {
    const api = githubApi();
    api.get(REPO).reply(200, { name: "widgets", default_branch: "main" });
    unprotected(api);
    const { code, stdout } = await ranex(["protect", "--repo", "octo/widgets", "--dry-run"], { env: ENV });
    expect(code).toBe(0);
    expect(stdout).toContain("octo/widgets main (branch protection): would change (dry run, nothing sent):\n  - require the status check ranex/judge\n");
    expect(stdout).toContain(`PUT ${PROTECTION}\n{\n  "required_status_checks": {`);
    expect(requests("PUT", /./)).toHaveLength(0);
  });

  it("talks to GitHub Enterprise Server through GHE_HOST", async () => {
    const api = githubApi("https://ghe.example.com", "ghes-3.19");
    api.get(`/api/v3${PROTECTION}`).reply(404, { message: "Branch not protected" });
    api.get(`/api/v3${REPO}/branches/main`).reply(200, { name: "main" });
    const { code, stdout } = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--dry-run"], { env: { ...ENV, GHE_HOST: "ghe.example.com" } });
    expect(code).toBe(0);
    expect(stdout).toContain("would change");
  });

  it("refuses without a token, a malformed --repo, or an unknown branch", async () => {
    expect(await ranex(["protect", "--repo", "octo/widgets"], { env: {} })).toMatchObject({ code: 2, stderr: expect.stringContaining("GITHUB_TOKEN is not set") });
    expect(await ranex(["protect", "--repo", "widgets"], { env: ENV })).toMatchObject({ code: 2, stderr: expect.stringContaining("--repo must be owner/name") });
    const api = githubApi();
    api.get(`${REPO}/branches/nope/protection`).reply(404, { message: "Branch not found" });
    api.get(`${REPO}/branches/nope`).reply(404, { message: "Branch not found" });
    expect(await ranex(["protect", "--repo", "octo/widgets", "--branch", "nope"], { env: ENV })).toMatchObject({ code: 2, stderr: expect.stringContaining("Branch not found") });
  });
});

describe("ranex protect --ruleset", () => {
  it("creates the gate's ruleset, then a second run changes nothing", async () => {
    const api = githubApi();
    api.get(`${REPO}/rulesets`).query({ per_page: 100, includes_parents: false }).reply(200, []);
    api.post(`${REPO}/rulesets`).reply(201, { id: 9 });
    const first = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--ruleset", "--app-id", "123"], { env: ENV });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('create the ruleset "Ranex Gate" for main');
    const posted = requests("POST", /rulesets$/)[0]!.body as Fixture;
    expect(posted).toMatchObject({
      name: "Ranex Gate", target: "branch", enforcement: "active", bypass_actors: [], conditions: { ref_name: { include: ["refs/heads/main"] } },
      rules: [
        { type: "pull_request", parameters: { dismiss_stale_reviews_on_push: true, require_last_push_approval: true, required_approving_review_count: 1 } },
        { type: "required_status_checks", parameters: { required_status_checks: [{ context: "ranex/judge", integration_id: 123 }, { context: "ranex/approval", integration_id: 123 }] } },
      ],
    });

    api.get(`${REPO}/rulesets`).query({ per_page: 100, includes_parents: false }).reply(200, [{ id: 9, name: "Ranex Gate", source_type: "Repository", source: "octo/widgets", enforcement: "active" }]);
    api.get(`${REPO}/rulesets/9`).reply(200, { id: 9, source_type: "Repository", source: "octo/widgets", ...posted });
    const second = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--ruleset", "--app-id", "123"], { env: ENV });
    expect(second.stdout).toContain("nothing to change");
    expect(requests("PUT", /./)).toHaveLength(0);
  });

  it("updates the gate's ruleset for another branch and clears its bypass list", async () => {
    const api = githubApi();
    api.get(`${REPO}/rulesets`).query({ per_page: 100, includes_parents: false }).reply(200, [{ id: 9, name: "Ranex Gate", source_type: "Repository", source: "octo/widgets", enforcement: "active" }]);
    api.get(`${REPO}/rulesets/9`).reply(200, {
      id: 9, name: "Ranex Gate", target: "branch", enforcement: "evaluate", source_type: "Repository", source: "octo/widgets",
      bypass_actors: [{ actor_id: 5, actor_type: "RepositoryRole", bypass_mode: "always" }],
      conditions: { ref_name: { include: ["refs/heads/release"], exclude: [] } },
      rules: [{ type: "deletion" }],
    });
    api.put(`${REPO}/rulesets/9`).reply(200, { id: 9 });
    const { code, stdout } = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--ruleset"], { env: ENV });
    expect(code).toBe(0);
    expect(stdout).toContain('apply the ruleset "Ranex Gate" to main');
    expect(stdout).toContain("make the ruleset \"Ranex Gate\" active (was evaluate)");
    expect(stdout).toContain("remove the ruleset's bypass actors");
    expect(requests("PUT", /rulesets\/9$/)[0]!.body).toMatchObject({
      enforcement: "active", bypass_actors: [], conditions: { ref_name: { include: ["refs/heads/release", "refs/heads/main"] } },
      rules: [{ type: "deletion" }, { type: "pull_request" }, { type: "required_status_checks" }],
    });
  });
});

describe("ranex protect --merge-queue", () => {
  const MERGE_QUEUE = "require a merge queue, so the queue's group commit, exactly what lands, is judged and approved";

  it("creates the gate's ruleset with a merge queue (a ruleset even without --ruleset), then a second run changes nothing", async () => {
    const api = githubApi();
    api.get(`${REPO}/rulesets`).query({ per_page: 100, includes_parents: false }).reply(200, []);
    api.get(`${REPO}/rules/branches/main`).query({ per_page: 100 }).reply(200, []);
    api.post(`${REPO}/rulesets`).reply(201, { id: 9 });
    const first = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--merge-queue", "--app-id", "123"], { env: ENV });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("octo/widgets main (ruleset): changed:\n");
    expect(first.stdout).toContain(`  - ${MERGE_QUEUE}\n`);
    expect(first.stdout).not.toContain("up to date");
    const posted = requests("POST", /rulesets$/)[0]!.body as Fixture;
    expect(posted.rules).toEqual([
      { type: "merge_queue", parameters: { check_response_timeout_minutes: 60, grouping_strategy: "ALLGREEN", max_entries_to_build: 5, max_entries_to_merge: 5, merge_method: "MERGE", min_entries_to_merge: 1, min_entries_to_merge_wait_minutes: 5 } },
      expect.objectContaining({ type: "pull_request" }),
      { type: "required_status_checks", parameters: { strict_required_status_checks_policy: false, required_status_checks: [{ context: "ranex/judge", integration_id: 123 }, { context: "ranex/approval", integration_id: 123 }] } },
    ]);

    api.get(`${REPO}/rulesets`).query({ per_page: 100, includes_parents: false }).reply(200, [{ id: 9, name: "Ranex Gate", source_type: "Repository", source: "octo/widgets", enforcement: "active" }]);
    api.get(`${REPO}/rulesets/9`).reply(200, { id: 9, source_type: "Repository", source: "octo/widgets", ...posted });
    const second = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--merge-queue", "--app-id", "123"], { env: ENV });
    expect(second.stdout).toBe("octo/widgets main (ruleset): already requires ranex/judge and ranex/approval, an approval of the latest push, no admin bypass and a merge queue; nothing to change\n");
    expect(requests("PUT", /./)).toHaveLength(0);
  });

  it("adds no second merge queue when another ruleset already puts the branch behind one", async () => {
    const api = githubApi();
    api.get(`${REPO}/rulesets`).query({ per_page: 100, includes_parents: false }).reply(200, []);
    api.get(`${REPO}/rules/branches/main`).query({ per_page: 100 }).reply(200, [
      { type: "merge_queue", ruleset_source_type: "Repository", ruleset_source: "octo/widgets", ruleset_id: 3, parameters: { check_response_timeout_minutes: 30, grouping_strategy: "HEADGREEN", max_entries_to_build: 3, max_entries_to_merge: 3, merge_method: "SQUASH", min_entries_to_merge: 1, min_entries_to_merge_wait_minutes: 1 } },
    ]);
    const { code, stdout } = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--merge-queue", "--dry-run"], { env: ENV });
    expect(code).toBe(0);
    expect(stdout).not.toContain(MERGE_QUEUE);
    expect(stdout).toContain(`POST ${REPO}/rulesets`);
    expect(stdout).not.toContain('"merge_queue"');
  });

  it("asks a ruleset for the strict (up to date) policy by default", async () => {
    const api = githubApi();
    api.get(`${REPO}/rulesets`).query({ per_page: 100, includes_parents: false }).reply(200, []);
    const { stdout } = await ranex(["protect", "--repo", "octo/widgets", "--branch", "main", "--ruleset", "--dry-run"], { env: ENV });
    expect(stdout).toContain("  - require branches to be up to date before merging, so the judged head already contains the base it lands on\n");
    expect(stdout).toContain('"strict_required_status_checks_policy": true');
  });
});
