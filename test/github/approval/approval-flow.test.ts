import { describe, expect, it } from "vitest";
import { deliveryId, payload, requests, useStrictNock, type Fixture } from "../../helpers/probot.js";
import {
  AGENT, HEAD, journalEntries, mergeApp, mockApprovalCheck, mockCheckRuns, mockFacts, mockJudgment, mockPolicy, mockProtected, NEW_HEAD, opened,
  REPO, reviewEvent, reviewOf,
} from "./helpers.js";

useStrictNock();

function approvalPosts(head: string): Fixture[] {
  return requests("POST", /check-runs$/).map((r) => r.body as Fixture).filter((b) => b.name === "ranex/approval" && b.head_sha === head);
}

describe("ranex/approval with the verdict", () => {
  it("follows a CANDIDATE as action_required, naming who may not approve", async () => {
    const { probot, runner, api } = await mergeApp();
    mockJudgment(api);
    mockProtected(api);
    mockFacts(api, {});
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened() as never });
    await runner.idle();
    const judge = requests("PATCH", /check-runs\/42$/)[1]?.body as Fixture;
    expect(judge).toMatchObject({ conclusion: "success" });
    expect(judge.output.summary).not.toContain("decoration");
    const [approval] = approvalPosts(HEAD);
    expect(approval).toMatchObject({ status: "completed", conclusion: "action_required", output: { title: "waiting for an independent approval of ec26c3e" } });
    expect(approval!.output.summary).toContain("0 of 1 so far");
    expect(approval!.output.summary).toContain(`- @${AGENT}: opened this pull request`);
    expect(approval!.output.summary).toContain(`- @${AGENT}: authored commit aaaaaaa`);
    expect(approval!.output.summary).toContain("- @carol: runs the agents (agents.operators in .github/ranex.yml)");
  });

  it("follows a FAIL as failure: the judge says FAIL", async () => {
    const { probot, runner, api } = await mergeApp({ outcome: "fail", claim: "diff.scope" });
    mockJudgment(api);
    mockProtected(api);
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened() as never });
    await runner.idle();
    const [approval] = approvalPosts(HEAD);
    expect(approval).toMatchObject({ conclusion: "failure", output: { title: "the judge says FAIL" } });
    expect(approval!.output.summary).toMatch(/^## ❌ The judge says FAIL\n\n`ranex\/judge` found `ec26c3e` FAIL \(journal entry `[0-9a-f-]{36}`\)/);
  });

  it("is neutral for a person's pull request, like ranex/judge", async () => {
    const { probot, runner, api, stand } = await mergeApp();
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
    mockPolicy(api);
    // No other open PR has this head (issue 14: asked before any neutral).
    api.get(`${REPO}/commits/${HEAD}/pulls`).query({ per_page: 100 }).reply(200, []);
    api.patch(`${REPO}/check-runs/42`).reply(200, {});
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened") as never });
    await runner.idle();
    expect(stand.requests).toHaveLength(0);
    expect(approvalPosts(HEAD)).toEqual([expect.objectContaining({ conclusion: "neutral", output: expect.objectContaining({ title: "not an agent PR" }) })]);
  });

  it("decides a review that arrives while the judge runs when the verdict lands", async () => {
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const { probot, runner, api, dataDir } = await mergeApp({ gate });
    mockJudgment(api);
    // Read once by the review, then served from the cache to the judgment on the same branch.
    mockProtected(api);
    mockCheckRuns(api, { status: "in_progress", conclusion: null });
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened() as never });
    await probot.receive({ id: deliveryId(), name: "pull_request_review", payload: reviewEvent("submitted", "alice") as never });
    expect(approvalPosts(HEAD)).toHaveLength(0);
    mockFacts(api, { reviews: [reviewOf(11, "alice")], roles: { alice: "write" } });
    mockApprovalCheck(api);
    release();
    await runner.idle();
    expect(approvalPosts(HEAD)).toEqual([expect.objectContaining({ conclusion: "success", output: expect.objectContaining({ title: "approved by @alice on ec26c3e" }) })]);
    expect((await journalEntries(dataDir)).map((e) => e.kind)).toEqual(["verdict", "approval"]);
  });

  it("starts a new head over: the approval of the previous head does not count", async () => {
    const { probot, runner, api } = await mergeApp();
    mockJudgment(api);
    mockProtected(api);
    mockFacts(api, { reviews: [reviewOf(11, "alice")], roles: { alice: "write" } });
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened() as never });
    await runner.idle();
    expect(approvalPosts(HEAD)[0]?.conclusion).toBe("success");
    mockJudgment(api, NEW_HEAD);
    mockFacts(api, { reviews: [reviewOf(11, "alice")], pull: { head: NEW_HEAD } });
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened(NEW_HEAD, "pull_request.synchronize") as never });
    await runner.idle();
    const [again] = approvalPosts(NEW_HEAD);
    expect(again).toMatchObject({ conclusion: "action_required", output: { title: "waiting for an independent approval of 1111111" } });
    expect(again!.output.summary).toContain("- @alice (review 11): approved commit ec26c3e, not the head 1111111");
  });
});
