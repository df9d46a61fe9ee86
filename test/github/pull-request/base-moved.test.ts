import { describe, expect, it } from "vitest";
import { deliveryId, payload, requests, useStrictNock, type Fixture } from "../../helpers/probot.js";
import { BASE_MOVED_ACTION } from "../../../src/github/pull-request/events.js";
import { AGENT, agentEvent, BASE, completion, HEAD, lifecycleApp, mockCheck, mockPolicy, POLICY, pullObject, REPO } from "./helpers.js";

// The base branch moves on after the agent branched. A CANDIDATE says which tip it was measured on
// (`/ranex explain`), and a policy may opt in to judging open agent PRs again on every base push.

useStrictNock();

const TIP = "6113728f27ae82c7b1a177c8d03f9e96e0adf246";
const OPT_IN = POLICY.replace("require:", "tests:\n  rejudge_on_base_push: true\nrequire:");

describe("a push to a base branch", () => {
  it("judges the open agent PRs into it again against the new tip when the policy opts in, and no one else's", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    mockPolicy(api, TIP, OPT_IN, 2);
    api.get(`${REPO}/pulls`).query({ state: "open", base: "master", per_page: 100 }).reply(200, [
      pullObject(2, (p) => { p.user.login = AGENT; p.body = "Ranex-Task: mul"; }),
      pullObject(3, (p) => { p.head.sha = "3".repeat(40); }),
    ]);
    mockCheck(api, 42);
    await probot.receive({ id: deliveryId(), name: "push", payload: payload("push") as never });
    await runner.idle();
    expect(stand.requests.map((r) => [r.base, r.head])).toEqual([[TIP, HEAD]]);
    expect(completion(42)).toMatchObject({ conclusion: "success" });
  });

  it("does nothing more than read the policy when the policy does not opt in", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    mockPolicy(api, TIP);
    await probot.receive({ id: deliveryId(), name: "push", payload: payload("push") as never });
    await runner.idle();
    expect(stand.requests).toEqual([]);
    expect(requests("POST", /./).filter((r) => !r.path.includes("access_tokens"))).toEqual([]);
  });

  it("skips a queued base-moved judgment whose tip the branch has already left", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    api.get(`${REPO}/branches/master`).reply(200, { name: "master", commit: { sha: "9".repeat(40) } });
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened", (p) => {
      p.action = BASE_MOVED_ACTION;
      p.pull_request.base.sha = TIP;
    }) as never });
    await runner.idle();
    expect(stand.requests).toEqual([]);
  });
});

describe("/ranex explain after the base moved on", () => {
  it("says the CANDIDATE was measured on an older tip of the base", async () => {
    const { probot, runner, api } = await lifecycleApp();
    mockCheck(api, 42);
    mockPolicy(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened") as never });
    await runner.idle();
    const entry = completion(42)!.external_id as string;

    api.get(`${REPO}/pulls/1`).reply(200, pullObject(1, (p) => { p.user.login = AGENT; }));
    api.get(`${REPO}/commits/${HEAD}/check-runs`).query({ check_name: "ranex/judge", filter: "latest" })
      .reply(200, { total_count: 1, check_runs: [{ id: 42, status: "completed", conclusion: "success", external_id: entry, output: { title: "CANDIDATE" } }] });
    api.get(`${REPO}/branches/master`).reply(200, { name: "master", commit: { sha: TIP } });
    api.post(`${REPO}/issues/1/comments`).reply(201, { id: 9 });
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: payload("issue_comment.created", (p) => { p.comment.body = "/ranex explain"; }) as never });
    await runner.idle();
    const text = (requests("POST", /issues\/1\/comments$/)[0]?.body as Fixture).body as string;
    expect(text).toContain("**CANDIDATE** for `ec26c3e`");
    expect(text).toContain(`**The base has moved on.** This CANDIDATE was measured on \`master\` at \`${BASE.slice(0, 7)}\`; \`master\` is now at \`6113728\``);
  });
});
