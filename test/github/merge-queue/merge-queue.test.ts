import { describe, expect, it, vi } from "vitest";
import { coalescingOf } from "../../../src/queue/receiver.js";
import { deliveryId, payload, requests, useStrictNock, type Fixture } from "../../helpers/probot.js";
import { journalEntries } from "../approval/helpers.js";
import { standInJudge } from "../stand-in.js";
import {
  checksRequested, GROUP_BASE, GROUP_HEAD, HEAD_103, HEAD_104, judgedPull, judgePatches, mockApprovalFacts, mockGroup, mockPolicy,
  POLICY, posted, pullOf, queueApp, queueCommit, REPO, twoAgents,
} from "./helpers.js";

useStrictNock();

describe("a merge group of two agent pull requests", () => {
  it("fails ranex/approval naming the pull request without an approval of its head", async () => {
    const { stand, dataDir } = await twoAgents(["alice"], []);
    const [approval] = posted("ranex/approval");
    expect(approval).toMatchObject({
      head_sha: GROUP_HEAD, status: "completed", conclusion: "failure",
      output: { title: "not approved: #104 has no qualifying approval of its head" },
    });
    expect(approval!.output.summary).toContain("## ❌ Not every agent pull request in this merge group is approved: #104");
    expect(approval!.output.summary).toContain("### #103 `a103a10` (author agent-bot[bot])");
    expect(approval!.output.summary).toContain("### #104 `a104a10` (label agent)");
    expect(approval!.output.summary).toContain("0 of 1 so far");
    // The queue commit is judged against its base, with both tasks as one target set.
    expect(stand.requests).toEqual([expect.objectContaining({ base: GROUP_BASE, head: GROUP_HEAD, task: null, tasks: ["add", "mul"] })]);
    const [queued] = posted("ranex/judge");
    expect(queued).toMatchObject({ head_sha: GROUP_HEAD, status: "queued" });
    const [started, done] = judgePatches();
    expect(started).toMatchObject({ status: "in_progress" });
    expect(done).toMatchObject({ status: "completed", conclusion: "success" });
    expect(done!.output.summary).toContain("**Merge group** `2ffea6d` on `main`");
    expect(done!.output.summary).toContain("- pull requests in the group: #103, #104");
    expect(done!.output.summary).toContain("- tasks: `add`, `mul`");
    // #103's approval is signed and journalled for the group; #104 has none to record.
    const entries = await journalEntries(dataDir);
    expect(entries.map((e) => e.kind)).toEqual(["verdict", "verdict", "approval", "verdict"]);
  });

  it("succeeds when every agent pull request is approved, each approval journalled", async () => {
    const { dataDir } = await twoAgents(["alice"], ["bob"]);
    const [approval] = posted("ranex/approval");
    expect(approval).toMatchObject({ conclusion: "success", output: { title: "approved: #103 by @alice; #104 by @bob" } });
    const entries = await journalEntries(dataDir);
    expect(entries.map((e) => e.kind)).toEqual(["verdict", "verdict", "approval", "approval", "verdict"]);
    const approvals = entries.filter((e) => e.kind === "approval")
      .map((e) => JSON.parse(Buffer.from((e.payload as { payload: string }).payload, "base64").toString("utf8")) as Fixture);
    expect(approvals.map((a) => [a.predicate.pullRequest, a.predicate.head, a.predicate.approvers[0].login])).toEqual([[103, HEAD_103, "alice"], [104, HEAD_104, "bob"]]);
  });
});

describe("an approval in a merge group is bound to its pull request and base", () => {
  it("counts no approval of a head judged against a base the pull request no longer builds on", async () => {
    const app = await queueApp();
    const { probot, runner, api, dataDir } = app;
    const retargeted = "9".repeat(40);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
    mockPolicy(api);
    const pull104 = pullOf(104, HEAD_104);
    mockGroup(api, [pullOf(103, HEAD_103, { author: "alice" }), pull104]);
    api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
    // #104's CANDIDATE was given against another base, which main's commit does not descend from.
    await judgedPull(app, 104, HEAD_104, retargeted);
    api.get(`${REPO}/compare/${retargeted}...${GROUP_BASE}`).query({ per_page: 1 }).reply(404, { message: "Not Found" });
    mockPolicy(api);
    mockApprovalFacts(api, pull104, ["alice"]);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    await probot.receive({ id: deliveryId(), name: "merge_group", payload: checksRequested() as never });
    await runner.idle();
    const [approval] = posted("ranex/approval");
    expect(approval).toMatchObject({ conclusion: "failure", output: { title: "not approved: #104 has no qualifying approval of its head" } });
    expect(approval!.output.summary).toContain("the judge used base 9999999, but the pull request now targets main at 380387f, which does not descend from it");
    // alice's approval is not signed for a verdict that is not this pull request's own.
    expect((await journalEntries(dataDir)).map((e) => e.kind)).toEqual(["verdict", "verdict"]);
  });
});

describe("finding the pull requests of a batch that has one queue branch", () => {
  it("counts the pull requests the queue's commits name, when open against the same base", async () => {
    const { probot, runner, api, stand } = await queueApp();
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
    mockPolicy(api);
    // Squash method, one build for #101 to #104: only pr-104 has a branch.
    api.get(`${REPO}/compare/${GROUP_BASE}...${GROUP_HEAD}`).query({ per_page: 100, page: 1 }).reply(200, {
      status: "ahead", ahead_by: 4, behind_by: 0, total_commits: 4, files: [],
      commits: [
        queueCommit("1".repeat(40), "Add mul (#101)", 1), queueCommit("2".repeat(40), "Fix docs (#102)\n\nlong text", 1),
        queueCommit("3".repeat(40), "Mention #7 here (#7)", 1), queueCommit(GROUP_HEAD, "Add div (#104)", 1),
      ],
    });
    api.get(`${REPO}/git/matching-refs/heads%2Fgh-readonly-queue%2Fmain%2F`).query({ per_page: 100 })
      .reply(200, [{ ref: "refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64", object: { sha: GROUP_HEAD, type: "commit" } }]);
    api.get(`${REPO}/pulls/7`).reply(404, { message: "Not Found" });
    api.get(`${REPO}/pulls/101`).reply(200, pullOf(101, HEAD_103));
    api.get(`${REPO}/pulls/102`).reply(200, { ...pullOf(102, "b".repeat(40)), base: { sha: GROUP_BASE, ref: "release" } });
    api.get(`${REPO}/pulls/104`).reply(200, pullOf(104, HEAD_104, { author: "bob" }));
    api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
    api.get(`${REPO}/commits/${HEAD_103}/check-runs`).query({ check_name: "ranex/judge", filter: "latest", per_page: 100 }).reply(200, { total_count: 0, check_runs: [] });
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    await probot.receive({ id: deliveryId(), name: "merge_group", payload: checksRequested() as never });
    await runner.idle();
    expect(stand.requests).toHaveLength(1);
    expect(judgePatches()[1]!.output.summary).toContain("- pull requests in the group: #101, #104");
    expect(posted("ranex/approval")[0]).toMatchObject({ conclusion: "failure", output: { title: "not approved: #101 has no qualifying approval of its head" } });
  });
});

describe("a merge group without an agent pull request", () => {
  it("gets neutral for both checks, and nothing is measured", async () => {
    const { probot, runner, api, stand } = await queueApp();
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
    mockPolicy(api);
    mockGroup(api, [pullOf(103, HEAD_103, { author: "alice" }), pullOf(104, HEAD_104, { author: "bob" })]);
    api.patch(`${REPO}/check-runs/42`).reply(200, {});
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    await probot.receive({ id: deliveryId(), name: "merge_group", payload: checksRequested() as never });
    await runner.idle();
    expect(stand.requests).toHaveLength(0);
    expect(judgePatches()).toEqual([expect.objectContaining({ conclusion: "neutral", output: expect.objectContaining({ title: "no agent pull request in this merge group" }) })]);
    expect(judgePatches()[0]!.output.summary).toContain("(#103, #104)");
    expect(posted("ranex/approval")).toEqual([expect.objectContaining({ head_sha: GROUP_HEAD, conclusion: "neutral" })]);
  });

  it("is neutral when the base has no policy and no pull request in the group was ever recorded as an agent's", async () => {
    const { probot, runner, api } = await queueApp();
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
    mockPolicy(api, null);
    // The group is read all the same: agent-ness is kept for a pull request's life (issue 14).
    mockGroup(api, [pullOf(103, HEAD_103, { author: "alice" }), pullOf(104, HEAD_104, { author: "bob" })]);
    api.patch(`${REPO}/check-runs/42`).reply(200, {});
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    await probot.receive({ id: deliveryId(), name: "merge_group", payload: checksRequested() as never });
    await runner.idle();
    expect(judgePatches()[0]).toMatchObject({ conclusion: "neutral" });
    expect(posted("ranex/approval")[0]).toMatchObject({ conclusion: "neutral" });
  });
});

describe("a merge group that goes wrong", () => {
  it("is cancelled when destroyed mid-judgment, never left in progress", async () => {
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const app = await queueApp({ gate });
    const { probot, runner, api, stand } = app;
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
    mockPolicy(api);
    mockGroup(api, [pullOf(103, HEAD_103, { author: "alice" }), pullOf(104, HEAD_104)]);
    await judgedPull(app, 104, HEAD_104);
    mockApprovalFacts(api, pullOf(104, HEAD_104), ["alice"]);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    // in_progress, then cancelled by the job itself and by the destroyed sweep (which sees it open).
    api.patch(`${REPO}/check-runs/42`).times(3).reply(200, {});
    api.get(`${REPO}/commits/${GROUP_HEAD}/check-runs`).query({ check_name: "ranex/judge", per_page: 100 })
      .reply(200, { total_count: 1, check_runs: [{ id: 42, name: "ranex/judge", head_sha: GROUP_HEAD, status: "in_progress", conclusion: null, app: { id: 123 } }] });
    await probot.receive({ id: deliveryId(), name: "merge_group", payload: checksRequested() as never });
    await vi.waitFor(() => expect(stand.requests).toHaveLength(1));
    await probot.receive({ id: deliveryId(), name: "merge_group", payload: payload("merge_group.destroyed") as never });
    release();
    await runner.idle();
    const patches = judgePatches();
    expect(patches[0]).toMatchObject({ status: "in_progress" });
    expect(patches.slice(1)).toEqual([
      expect.objectContaining({ status: "completed", conclusion: "cancelled", output: expect.objectContaining({ title: "cancelled: the merge group was destroyed (dequeued)" }) }),
      expect.objectContaining({ status: "completed", conclusion: "cancelled", output: expect.objectContaining({ title: "cancelled: the merge group was destroyed (dequeued)" }) }),
    ]);
    // Nothing was signed for the destroyed group: only the pull request's own verdict and its approval.
    expect((await journalEntries(app.dataDir)).map((e) => e.kind)).toEqual(["verdict", "approval"]);
  });

  it("fails both checks with the reason when the group's commit is not built on its base", async () => {
    const { probot, runner, api, stand } = await queueApp();
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
    mockPolicy(api);
    api.get(`${REPO}/compare/${GROUP_BASE}...${GROUP_HEAD}`).query({ per_page: 100, page: 1 })
      .reply(200, { status: "diverged", ahead_by: 1, behind_by: 1, total_commits: 1, commits: [queueCommit(GROUP_HEAD, "Merge pull request #104 from x")], files: [] });
    api.patch(`${REPO}/check-runs/42`).reply(200, {});
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    await probot.receive({ id: deliveryId(), name: "merge_group", payload: checksRequested() as never });
    await runner.idle();
    expect(stand.requests).toHaveLength(0);
    const why = "error: the merge group's head `2ffea6d` is not built on its base `380387f` (GitHub compares them as diverged)";
    expect(judgePatches()).toEqual([expect.objectContaining({ status: "completed", conclusion: "failure", output: expect.objectContaining({ title: why }) })]);
    expect(posted("ranex/approval")).toEqual([expect.objectContaining({ conclusion: "failure", output: expect.objectContaining({ title: why }) })]);
  });

  it("fails ranex/approval for an agent pull request whose head ranex/judge never judged", async () => {
    const { probot, runner, api } = await queueApp();
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
    mockPolicy(api);
    mockGroup(api, [pullOf(103, HEAD_103, { author: "alice" }), pullOf(104, HEAD_104)]);
    api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
    api.get(`${REPO}/commits/${HEAD_104}/check-runs`).query({ check_name: "ranex/judge", filter: "latest", per_page: 100 }).reply(200, { total_count: 0, check_runs: [] });
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    await probot.receive({ id: deliveryId(), name: "merge_group", payload: checksRequested() as never });
    await runner.idle();
    const [approval] = posted("ranex/approval");
    expect(approval).toMatchObject({ conclusion: "failure", output: { title: "not approved: #104 has no qualifying approval of its head" } });
    expect(approval!.output.summary).toContain("**Reason:** `ranex/judge` has no verdict on the head `a104a10` of #104");
  });
});

describe("the Re-run button on a merge group's ranex/judge", () => {
  function rerun(externalId: string, sender = "maintainer"): Fixture {
    const group = checksRequested();
    return payload("check_run.rerequested", (p) => {
      p.repository = group.repository;
      p.sender = { ...p.sender, login: sender, type: sender.endsWith("[bot]") ? "Bot" : "User" };
      p.check_run.head_sha = GROUP_HEAD;
      p.check_run.external_id = externalId;
      p.check_run.pull_requests = [];
      p.check_run.check_suite.head_branch = group.merge_group.head_ref.replace(/^refs\/heads\//, "");
    });
  }

  it("judges the group again against the base of its journalled verdict, journalling who asked", async () => {
    const app = await queueApp();
    const { probot, runner, api, stand } = app;
    // The earlier verdict of the group commit, as the first judgment journalled it.
    const earlier = await standInJudge().judge({ source: "x", base: GROUP_BASE, head: GROUP_HEAD, task: null, dataDir: app.dataDir }, new AbortController().signal);
    const recorded = await app.journal.record(earlier, { repository: "octo-org/octo-repo", ref: "refs/heads/gh-readonly-queue/main/pr-104-x", time: "2026-02-01T00:00:00Z" });
    // Authorization reads the operators from the journalled base's policy, then the role.
    mockPolicy(api);
    api.get(`${REPO}/collaborators/maintainer/permission`).reply(200, { permission: "write", role_name: "write", user: null });
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
    mockPolicy(api);
    mockGroup(api, [pullOf(103, HEAD_103, { author: "alice" }), pullOf(104, HEAD_104, { author: "bob" })]);
    api.patch(`${REPO}/check-runs/42`).reply(200, {});
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
    await probot.receive({ id: deliveryId(), name: "check_run", payload: rerun(recorded.journalId) as never });
    await runner.idle();
    expect(posted("ranex/judge")).toEqual([expect.objectContaining({ head_sha: GROUP_HEAD, status: "queued" })]);
    expect(judgePatches()[0]).toMatchObject({ conclusion: "neutral" });
    expect(stand.requests).toHaveLength(0);
    expect((await journalEntries(app.dataDir)).map((e) => e.kind)).toEqual(["verdict", "rejudge"]);
  });

  it("fails, never passes, when the run holds no verdict to rebuild the group from", async () => {
    const { probot, runner, api } = await queueApp();
    // No base is known: the base branch's policy as it is now names the operators.
    mockPolicy(api, POLICY, "main");
    api.get(`${REPO}/collaborators/maintainer/permission`).reply(200, { permission: "write", role_name: "write", user: null });
    api.post(`${REPO}/check-runs`).reply(201, { id: 42 });
    await probot.receive({ id: deliveryId(), name: "check_run", payload: rerun("") as never });
    await runner.idle();
    // Known before anything is posted: one write, the check run created already failed (issue 21).
    expect(posted("ranex/judge")).toEqual([expect.objectContaining({ status: "completed", conclusion: "failure", output: expect.objectContaining({ title: "cannot re-run: the merge group's base is not known" }) })]);
    expect(requests("PATCH", /check-runs/)).toEqual([]);
  });

  it("lets no operator of the base's policy re-roll a group's judgment", async () => {
    const app = await queueApp();
    const { probot, runner, api } = app;
    const earlier = await standInJudge().judge({ source: "x", base: GROUP_BASE, head: GROUP_HEAD, task: null, dataDir: app.dataDir }, new AbortController().signal);
    const recorded = await app.journal.record(earlier, { repository: "octo-org/octo-repo", ref: "refs/heads/gh-readonly-queue/main/pr-104-x", time: "2026-02-01T00:00:00Z" });
    mockPolicy(api, `${POLICY}`.replace("  labels: [agent]\n", "  labels: [agent]\n  operators: [maintainer]\n"));
    await probot.receive({ id: deliveryId(), name: "check_run", payload: rerun(recorded.journalId) as never });
    await runner.idle();
    expect(requests("POST", /check-runs$/)).toHaveLength(0);
    expect((await journalEntries(app.dataDir)).map((e) => e.kind)).toEqual(["verdict"]);
  });

  it("lets no bot re-roll a group's judgment", async () => {
    const { probot, runner } = await queueApp({}, false);
    await probot.receive({ id: deliveryId(), name: "check_run", payload: rerun("whatever", "agent-bot[bot]") as never });
    await runner.idle();
    expect(requests("POST", /check-runs$/)).toHaveLength(0);
  });
});

describe("merge_group deliveries in the durable queue", () => {
  it("coalesce on the group's commit, and destroyed replaces its head so the judgment stops anywhere", () => {
    const key = "octo-org/octo-repo@merge_group:2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d";
    expect(coalescingOf("merge_group", payload("merge_group.checks_requested"))).toEqual({ key, head: GROUP_HEAD });
    expect(coalescingOf("merge_group", payload("merge_group.destroyed"))).toEqual({ key, head: "destroyed:dequeued" });
  });
});
