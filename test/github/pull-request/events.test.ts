import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ESCALATION_FILE } from "../../../src/github/approval/escalation-store.js";
import { deliveryId, payload, requests, sent, useStrictNock, type Fixture } from "../../helpers/probot.js";
import { AGENT, agentEvent, completion, conclusions, HEAD, lifecycleApp, mockCheck, mockPolicy, mockProtected, mockPullsOfCommit, pullObject, REPO } from "./helpers.js";

// The judged PR's lifecycle (issue 12): closing cancels work and ends all posting, the author cannot
// re-roll a judgment of the same inputs, drafts are judged but never escalate, and the Re-run
// buttons work for heads in forks without ever posting a passing conclusion.

useStrictNock();

const OLD = "d6fde92930d4715a2b49857d24b940956b26d2d3";

async function waitForJudge(requests: unknown[]): Promise<void> {
  while (requests.length === 0) await new Promise((r) => setTimeout(r, 5));
}

describe("closing a pull request", () => {
  it("cancels the judgment in flight and posts nothing more on the PR, until it is reopened", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const { probot, runner, api, stand } = await lifecycleApp({ gate }, true);
    mockCheck(api, 42);
    mockPolicy(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened") as never });
    await waitForJudge(stand.requests);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.closed") as never });
    release();
    await runner.idle();
    expect(completion(42)).toMatchObject({ conclusion: "cancelled", output: { title: "cancelled: the pull request was closed" } });

    // A push delivered late, a label on the closed PR, a review: nothing is posted.
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.synchronize") as never });
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.labeled", (p) => { p.pull_request.state = "closed"; }) as never });
    await runner.idle();
    expect(requests("POST", /check-runs$/)).toHaveLength(1);
    expect(conclusions()).toEqual(["cancelled"]);

    // Reopened: judged again (the cut-off judgment left no verdict, so it is measured).
    mockCheck(api, 43);
    mockPolicy(api);
    mockProtected(api);
    api.get(`${REPO}/pulls/2/commits`).query({ per_page: 100 }).reply(200, []);
    api.get(`${REPO}/pulls/2/reviews`).query({ per_page: 100 }).reply(200, []);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    // The approval is bound to the pull request as GitHub has it now.
    api.get(`${REPO}/pulls/2`).reply(200, pullObject(2, (p) => { p.user.login = AGENT; }));
    mockPullsOfCommit(api, HEAD, [pullObject(2, (p) => { p.user.login = AGENT; })]);
    api.get(`${REPO}/issues/2/timeline`).query({ per_page: 100 }).reply(200, []);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.reopened") as never });
    await runner.idle();
    expect(completion(43)).toMatchObject({ conclusion: "success" });
    expect(stand.requests).toHaveLength(2);
  });
});

describe("the same inputs", () => {
  it("give the author's re-rolls (reopen, ready for review, a label) the recorded verdict; a maintainer's /ranex rejudge measures again", async () => {
    const { probot, runner, api, stand } = await lifecycleApp({ outcome: "fail", claim: "diff.scope" });
    mockCheck(api, 42);
    mockPolicy(api, undefined, undefined, 4);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened") as never });
    await runner.idle();
    const first = completion(42)!;

    let id = 43;
    for (const name of ["pull_request.reopened", "pull_request.ready_for_review", "pull_request.labeled"]) {
      mockCheck(api, id);
      // The examples' ready_for_review payload has no installation: the opened one, with its action.
      const fixture = name === "pull_request.ready_for_review" ? "pull_request.opened" : name;
      await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent(fixture, (p) => { p.action = name.split(".")[1]; }) as never });
      await runner.idle();
      const again = completion(id)!;
      expect(again).toMatchObject({ conclusion: "failure", external_id: first.external_id });
      expect(again.output.summary).toContain("not a new measurement");
      id += 1;
    }
    expect(stand.requests).toHaveLength(1);

    api.get(`${REPO}/pulls/1`).reply(200, pullObject(1, (p) => { p.user.login = AGENT; p.body = "Ranex-Task: mul"; }));
    api.get(`${REPO}/collaborators/maintainer/permission`).reply(200, { permission: "write", role_name: "write", user: null });
    api.post(`${REPO}/issues/comments/492700400/reactions`).reply(201, { id: 1, content: "eyes" });
    mockCheck(api, 46);
    // Once for who may re-judge (operators are named by the base's policy), once for the judgment.
    mockPolicy(api, undefined, undefined, 2);
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: payload("issue_comment.created", (p) => { p.comment.user.login = "maintainer"; }) as never });
    await runner.idle();
    expect(stand.requests).toHaveLength(2);
    expect(completion(46)!.external_id).not.toBe(first.external_id);
  });
});

describe("drafts", () => {
  it("are judged, but an unsafe FAIL of a draft neither spends the budget nor escalates", async () => {
    const { probot, runner, api, dataDir } = await lifecycleApp({ outcome: "fail", claim: "diff.frozen" }, true);
    mockCheck(api, 42);
    mockPolicy(api);
    mockProtected(api);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened", (p) => { p.pull_request.draft = true; }) as never });
    await runner.idle();
    expect(completion(42)).toMatchObject({ conclusion: "failure" });
    expect(completion(42)!.output.summary).toContain("This pull request is a **draft**");
    expect(requests("POST", /issues\/2\/(comments|labels)$/)).toEqual([]);
    expect(existsSync(join(dataDir, ESCALATION_FILE))).toBe(false);
  });
});

describe("Re-run", () => {
  const HW = "/repos/github/hello-world";

  it("finds the pull request of a fork's head itself, and judges it for a maintainer", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    const pull = pullObject(2, (p) => { p.head.sha = OLD; p.base.repo.owner.login = "github"; p.base.repo.name = "hello-world"; });
    api.get(`${HW}/commits/${OLD}/pulls`).query({ per_page: 100 }).reply(200, [pull]);
    api.get(`${HW}/pulls/2`).reply(200, pull);
    api.get(`${HW}/collaborators/octocat/permission`).reply(200, { permission: "admin", role_name: "admin", user: null });
    api.post(`${HW}/check-runs`).reply(201, { id: 42 });
    api.get(`${HW}/contents/.github%2Franex.yml?ref=${pull.base.sha}`).times(2).reply(200, { type: "file", encoding: "base64", content: Buffer.from("version: 1\nagents:\n  authors: [Codertocat]\nrequire: [diff.scope]\n").toString("base64") });
    api.patch(`${HW}/check-runs/42`).times(2).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "check_run", payload: payload("check_run.rerequested", (p) => { p.check_run.pull_requests = []; }) as never });
    await runner.idle();
    expect(stand.requests.map((r) => r.head)).toEqual([OLD]);
    expect(conclusions()).toEqual(["success"]);
  });

  it("says `cancelled`, not neutral, when no open pull request has the head", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    api.get(`${HW}/commits/${OLD}/pulls`).query({ per_page: 100 }).reply(200, []);
    api.post(`${HW}/check-runs`).reply(201, { id: 50 });
    await probot.receive({ id: deliveryId(), name: "check_run", payload: payload("check_run.rerequested", (p) => { p.check_run.pull_requests = []; }) as never });
    await runner.idle();
    expect(stand.requests).toEqual([]);
    // Its answer is known at once: one write, the check run created already completed (issue 21).
    expect(requests("POST", /check-runs$/).map((r) => r.body)).toEqual([expect.objectContaining({ status: "completed", conclusion: "cancelled", output: expect.objectContaining({ title: "not re-judged: no open pull request has this head" }) })]);
    expect(requests("PATCH", /check-runs\/50$/)).toEqual([]);
  });

  it("Re-run all (check_suite.rerequested) measures the head again for a maintainer", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    mockCheck(api, 42);
    mockPolicy(api, undefined, undefined, 3);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened") as never });
    await runner.idle();

    api.get(`${REPO}/pulls/2`).reply(200, pullObject(2, (p) => { p.user.login = AGENT; p.body = "Ranex-Task: mul"; }));
    api.get(`${REPO}/collaborators/maintainer/permission`).reply(200, { permission: "write", role_name: "write", user: null });
    mockCheck(api, 43);
    await probot.receive({ id: deliveryId(), name: "check_suite", payload: payload("check_suite.rerequested", (p) => {
      p.installation.id = 1;
      p.sender = { ...p.sender, login: "maintainer", type: "User" };
    }) as never });
    await runner.idle();
    expect(stand.requests.map((r) => r.head)).toEqual([HEAD, HEAD]);
    expect(completion(43)!.output.summary).not.toContain("not a new measurement");
  });

  it("Re-run on ranex/approval decides the approval again without measuring", async () => {
    const { probot, runner, api, stand } = await lifecycleApp({}, true);
    api.get(`${REPO}/pulls/2`).reply(200, pullObject(2, (p) => { p.user.login = AGENT; }));
    mockProtected(api);
    api.get(`${REPO}/commits/${HEAD}/check-runs`).query({ filter: "latest", per_page: 100 }).reply(200, { total_count: 1, check_runs: [
      { id: 42, name: "ranex/judge", head_sha: HEAD, status: "completed", conclusion: "failure", external_id: "", output: { title: "FAIL", summary: "s", text: null, annotations_count: 0, annotations_url: "u" } },
    ] });
    await probot.receive({ id: deliveryId(), name: "check_run", payload: payload("check_run.rerequested", (p) => {
      p.check_run.name = "ranex/approval";
      p.check_run.head_sha = HEAD;
      p.repository = payload("pull_request.opened").repository;
      p.check_run.pull_requests = [{ number: 2 }];
    }) as never });
    await runner.idle();
    expect(stand.requests).toEqual([]);
    expect(sent.filter((r) => r.method !== "GET" && !r.path.includes("access_tokens"))).toEqual([]);
  });
});

describe("a head no webhook told us about", () => {
  it("is still looked up before neutral: a person's PR whose head no agent PR has", async () => {
    const { probot, runner, api } = await lifecycleApp();
    mockCheck(api, 42, 1);
    mockPolicy(api);
    mockPullsOfCommit(api, HEAD, [pullObject(2)]);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened") as never });
    await runner.idle();
    expect(completion(42)).toMatchObject({ conclusion: "neutral" });
  });
});
