import { describe, expect, it } from "vitest";
import { PullRequestStore } from "../../../src/github/pull-request/store.js";
import { deliveryId, payload, requests, useStrictNock, type Fixture } from "../../helpers/probot.js";
import {
  AGENT, agentEvent, BASE, completion, conclusions, FULL, HEAD, LAX, lifecycleApp, mockCheck, mockPolicy, mockProtected, mockPullsOfCommit, NEW_HEAD,
  pullObject, REPO,
} from "./helpers.js";

// Issue 14: a commit that is an agent PR's head is judged as such whatever else points at it, and
// agent-ness is something the agent cannot take back (labels, base, app-owned labels).

useStrictNock();

const BODY = "Adds mul.\n\nRanex-Task: mul\n";

function approvalPosts(): Fixture[] {
  return requests("POST", /check-runs$/).map((r) => r.body as Fixture).filter((b) => b.name === "ranex/approval");
}

describe("the same commit as the head of two pull requests", () => {
  it("judges a second PR into a policy-less branch as the agent's PR: no neutral on either check, no new measurement", async () => {
    const { probot, runner, api, stand } = await lifecycleApp({ outcome: "fail", claim: "diff.scope" }, true);
    // The agent's own PR into master: FAIL.
    mockCheck(api, 42);
    mockPolicy(api);
    mockProtected(api);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").twice().reply(201, { id: 77 });
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened") as never });
    await runner.idle();
    expect(completion(42)).toMatchObject({ conclusion: "failure" });

    // The attack: a second PR with the same head into a branch the agent pushed without a policy.
    mockCheck(api, 43);
    mockPolicy(api, LAX, null);
    mockPullsOfCommit(api, HEAD, [
      pullObject(2, (p) => { p.user.login = AGENT; p.body = BODY; }),
      pullObject(3, (p) => { p.base.ref = "lax"; p.base.sha = LAX; }),
    ]);
    mockPolicy(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened", (p) => {
      p.number = 3;
      p.pull_request.number = 3;
      p.pull_request.base.ref = "lax";
      p.pull_request.base.sha = LAX;
    }) as never });
    await runner.idle();

    expect(conclusions()).not.toContain("neutral");
    const second = completion(43)!;
    expect(second).toMatchObject({ conclusion: "failure" });
    expect(second.output.summary).toContain("This commit is also the head of #2, an agent's pull request (author agent-bot[bot])");
    // Same base tip, head, policy and task as #2's judgment: its signed verdict, not a new measurement.
    expect(stand.requests).toHaveLength(1);
    expect(second.output.summary).toContain("this is that signed verdict");
    expect(approvalPosts().map((b) => b.conclusion)).toEqual(["failure", "failure"]);
  });

  it("asks the policy of the other PR's own base: a person's PR next to a person's PR stays neutral", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    mockCheck(api, 43, 1);
    mockPolicy(api, LAX, null);
    mockPullsOfCommit(api, HEAD, [pullObject(2, (p) => { p.user.login = "octocat"; }), pullObject(3)]);
    mockPolicy(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened", (p) => {
      p.number = 3;
      p.pull_request.number = 3;
      p.pull_request.base.sha = LAX;
    }) as never });
    await runner.idle();
    expect(stand.requests).toHaveLength(0);
    expect(completion(43)).toMatchObject({ conclusion: "neutral", output: { title: "not an agent PR" } });
  });
});

describe("agent-ness the agent cannot take back", () => {
  it("keeps a PR an agent's after the agent removes its label, and judges its next head", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    mockCheck(api, 42);
    mockPolicy(api, BASE, undefined, 3);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened", (p) => { p.pull_request.labels = [{ name: "agent" }]; }) as never });
    await runner.idle();

    // The PR's author (the agent's account) takes the label off: nothing is reclassified, no API call needed to say so.
    mockCheck(api, 43);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.unlabeled", (p) => {
      p.label.name = "agent";
      p.pull_request.labels = [];
    }) as never });
    await runner.idle();

    mockCheck(api, 44);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.synchronize", (p) => {
      p.pull_request.head.sha = NEW_HEAD;
      p.pull_request.labels = [{ name: "enhancement" }];
    }) as never });
    await runner.idle();

    expect(conclusions()).toEqual(["success", "success", "success"]);
    expect(completion(43)!.output.summary).toContain("this is that signed verdict");
    expect(stand.requests.map((r) => r.head)).toEqual([HEAD, NEW_HEAD]);
  });

  it("lets a writer with no hand in the change take the label off: the PR is a person's again", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    mockCheck(api, 42);
    // The judgment, who may reclassify (operators are named by the base's policy), the judgment after.
    mockPolicy(api, BASE, undefined, 3);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened", (p) => { p.pull_request.labels = [{ name: "agent" }]; }) as never });
    await runner.idle();

    api.get(`${REPO}/collaborators/maintainer/permission`).reply(200, { permission: "write", role_name: "write", user: null });
    mockCheck(api, 43, 1);
    mockPullsOfCommit(api, HEAD);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.unlabeled", (p) => {
      p.label.name = "agent";
      p.pull_request.labels = [];
      p.sender.login = "maintainer";
    }) as never });
    await runner.idle();
    expect(completion(43)).toMatchObject({ conclusion: "neutral" });
    expect(stand.requests).toHaveLength(1);
  });

  it("does not honour a ranex:escalated label the agent put on itself: an unsafe FAIL escalates", async () => {
    const { probot, runner, api, dataDir } = await lifecycleApp({ outcome: "fail", claim: "diff.frozen" }, true);
    mockCheck(api, 42);
    mockPolicy(api);
    mockProtected(api);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    api.post(`${REPO}/issues/2/comments`).reply(201, { id: 9 });
    api.post(`${REPO}/issues/2/labels`).reply(200, [{ name: "ranex:escalated" }]);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened", (p) => { p.pull_request.labels = [{ name: "ranex:escalated" }]; }) as never });
    await runner.idle();
    expect((requests("POST", /issues\/2\/comments$/)[0]?.body as Fixture).body).toContain("escalated to people");
    // Recorded as the app's own: from now on it is honoured.
    expect(new PullRequestStore(dataDir).appLabels(FULL, 2)).toEqual(["ranex:escalated"]);

    // The app's own label arrives as an event: it never re-judges (no request at all).
    const before = requests("POST", /./).length;
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.labeled", (p) => {
      p.label = { ...p.label, name: "ranex:escalated" };
      p.sender = { ...p.sender, login: "ranex-gate[bot]", type: "Bot" };
    }) as never });
    await runner.idle();
    expect(requests("POST", /./)).toHaveLength(before);
  });
});

describe("retargeting", () => {
  it("judges an agent PR again when it is retargeted from a lax branch to one with a policy", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    mockCheck(api, 42, 1);
    mockPolicy(api, LAX, null);
    mockPullsOfCommit(api, HEAD);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened", (p) => {
      p.pull_request.base.ref = "lax";
      p.pull_request.base.sha = LAX;
    }) as never });
    await runner.idle();
    expect(completion(42)).toMatchObject({ conclusion: "neutral" });

    mockCheck(api, 43);
    mockPolicy(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.edited", (p) => {
      p.changes = { base: { ref: { from: "lax" }, sha: { from: LAX } } };
    }) as never });
    await runner.idle();
    expect(stand.requests.map((r) => r.base)).toEqual([BASE]);
    expect(completion(43)).toMatchObject({ conclusion: "success" });
  });

  it("keeps judging an agent PR retargeted to a branch without a policy (it stays an agent's)", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    mockCheck(api, 42);
    mockPolicy(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened") as never });
    await runner.idle();

    mockCheck(api, 43);
    mockPolicy(api, LAX, null);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.edited", (p) => {
      p.changes = { base: { ref: { from: "master" }, sha: { from: BASE } } };
      p.pull_request.base.ref = "lax";
      p.pull_request.base.sha = LAX;
    }) as never });
    await runner.idle();
    expect(stand.requests.map((r) => r.base)).toEqual([BASE, LAX]);
    expect(conclusions()).not.toContain("neutral");
    expect(completion(43)!.output.summary).toContain("an agent's pull request stays one");
  });
});
