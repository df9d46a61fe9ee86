import { describe, expect, it } from "vitest";
import type { GitHub } from "../../../src/github/check-runs.js";
import { sweepOnce, type SyntheticDelivery } from "../../../src/github/pull-request/sweep.js";
import { FIXED_TIME, payload, useStrictNock } from "../../helpers/probot.js";
import { AGENT, completion, HEAD, lifecycleApp, mockCheck, mockPolicy, NEW_HEAD, pullObject, REPO } from "./helpers.js";

// GitHub never redelivers a failed webhook. The sweep lists open pull requests and hands every head
// without a ranex/judge check run of this app to the same handlers, as if its webhook had arrived.

useStrictNock();

const quiet = { info: () => {}, error: () => {} };

describe("the reconcile sweep", () => {
  it("finds an agent head whose webhook was lost and judges it; a head with a check run is left alone", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    const repository = payload("pull_request.opened").repository;
    api.get("/app/installations").query({ per_page: 100 }).reply(200, [{ id: 1, account: { login: "Codertocat" }, suspended_at: null }]);
    api.get("/installation/repositories").query({ per_page: 100 }).reply(200, { total_count: 1, repositories: [repository] });
    api.get(`${REPO}/pulls`).query({ state: "open", per_page: 100 }).reply(200, [
      pullObject(2, (p) => { p.user.login = AGENT; p.body = "Ranex-Task: mul"; }),
      pullObject(3, (p) => { p.head.sha = NEW_HEAD; }),
    ]);
    api.get(`${REPO}/commits/${HEAD}/check-runs`).query({ check_name: "ranex/judge", app_id: 123, per_page: 1 }).reply(200, { total_count: 0, check_runs: [] });
    api.get(`${REPO}/commits/${NEW_HEAD}/check-runs`).query({ check_name: "ranex/judge", app_id: 123, per_page: 1 }).reply(200, { total_count: 1, check_runs: [{ id: 9 }] });
    mockCheck(api, 42);
    mockPolicy(api);

    const handed: SyntheticDelivery[] = [];
    const result = await sweepOnce({
      app: () => probot.auth() as Promise<GitHub>, installation: (id) => probot.auth(id) as Promise<GitHub>, appId: 123,
      deliver: async (delivery) => {
        handed.push(delivery);
        await probot.receive({ id: delivery.id, name: delivery.name, payload: delivery.payload as never });
        return true;
      },
      clock: () => FIXED_TIME, log: quiet,
    });
    await runner.idle();
    expect(result).toEqual({ pulls: 2, queued: 1, settled: 0, truncated: false });
    expect(handed.map((d) => d.id)).toEqual([`reconcile:Codertocat/Hello-World#2@${HEAD}:2026-02-03T04`]);
    expect(stand.requests.map((r) => [r.head, r.task])).toEqual([[HEAD, "mul"]]);
    expect(completion(42)).toMatchObject({ conclusion: "success" });
  });

  it("stops at its bound and says so", async () => {
    const { probot, api } = await lifecycleApp();
    api.get("/app/installations").query({ per_page: 100 }).reply(200, [{ id: 1, suspended_at: null }]);
    api.get("/installation/repositories").query({ per_page: 100 }).reply(200, { total_count: 1, repositories: [payload("pull_request.opened").repository] });
    api.get(`${REPO}/pulls`).query({ state: "open", per_page: 100 }).reply(200, [pullObject(2), pullObject(3)]);
    api.get(`${REPO}/commits/${HEAD}/check-runs`).query({ check_name: "ranex/judge", app_id: 123, per_page: 1 }).reply(200, { total_count: 1, check_runs: [{ id: 9 }] });
    const result = await sweepOnce({
      app: () => probot.auth() as Promise<GitHub>, installation: (id) => probot.auth(id) as Promise<GitHub>, appId: 123,
      deliver: async () => { throw new Error("nothing to deliver"); }, clock: () => FIXED_TIME, log: quiet, maxPulls: 1,
    });
    expect(result).toEqual({ pulls: 1, queued: 0, settled: 0, truncated: true });
  });
});
