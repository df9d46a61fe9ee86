import { describe, expect, it } from "vitest";
import type nock from "nock";
import { OVERRIDE_PREDICATE_TYPE, statementOf } from "../../../src/attest/index.js";
import { openJournal } from "../../../src/journal/index.js";
import { deliveryId, payload, requests, useStrictNock, type Fixture } from "../../helpers/probot.js";
import {
  agentId, AGENT, BASE, commitOf, HEAD, journalEntries, mergeApp, mockApprovalCheck, mockCheckRuns, mockFacts, mockJudgment, mockPolicy, mockProtected,
  NEW_HEAD, opened, policyText, pullOf, REPO, reviewEvent, reviewOf, type Person,
} from "../approval/helpers.js";

// `/ranex override <reason>` (issue 23) through the real app: a real journal and merge authority,
// GitHub mocked at the HTTP layer (strict, every body checked against GitHub's OpenAPI).

useStrictNock();

const REASON = "The runner is not supported on this base yet; the change was checked by hand.";
const maria: Person = { login: "maria", name: "Maria M", email: "maria@example.com" };

function comment(body: string, login = "maria", type = "User"): Fixture {
  return payload("issue_comment.created", (p) => {
    p.issue.number = 2;
    p.comment.body = body;
    p.comment.user.login = login;
    p.comment.user.type = type;
  });
}

/** A FAIL on HEAD, posted and journalled: what an override stands against. */
async function failed(extraPolicy = "") {
  const app = await mergeApp({ outcome: "fail", claim: "diff.scope", details: [{ path: "tests/test_calc.py", message: "outside the policy's scope" }] });
  mockJudgment(app.api, HEAD, policyText(extraPolicy));
  mockProtected(app.api);
  mockApprovalCheck(app.api);
  await app.probot.receive({ id: deliveryId(), name: "pull_request", payload: opened() as never });
  await app.runner.idle();
  const [verdict] = await journalEntries(app.dataDir);
  expect(verdict?.kind).toBe("verdict");
  return { ...app, verdictId: verdict!.id };
}

/** What the override reads to decide who asks: the PR, the base's policy, its commits and pushes, the asker's role. */
function mockAsk(api: nock.Scope, o: { role?: string | null; login?: string; commits?: Fixture[]; timeline?: Fixture[]; policy?: string; author?: string }): void {
  const commits = o.commits ?? [commitOf("a".repeat(40))];
  api.get(`${REPO}/pulls/2`).reply(200, pullOf(2, o.author === undefined ? {} : { author: o.author }, commits.length));
  mockPolicy(api, o.policy ?? policyText());
  api.get(`${REPO}/pulls/2/commits`).query({ per_page: 100 }).reply(200, commits);
  api.get(`${REPO}/issues/2/timeline`).query({ per_page: 100 }).reply(200, o.timeline ?? []);
  const login = o.login ?? "maria";
  const role = o.role === undefined ? "maintain" : o.role;
  const path = `${REPO}/collaborators/${encodeURIComponent(login)}/permission`;
  if (role === null) api.get(path).reply(404, { message: "Not Found" });
  else api.get(path).reply(200, { permission: role === "maintain" ? "write" : role, role_name: role, user: null });
}

function mockJudgeRun(api: nock.Scope, externalId: string, conclusion = "failure", head = HEAD): void {
  api.get(`${REPO}/commits/${head}/check-runs`).query({ filter: "latest", per_page: 100 }).reply(200, {
    total_count: 1,
    check_runs: [{ id: 42, name: "ranex/judge", head_sha: head, status: "completed", conclusion, external_id: externalId, output: { title: "FAIL", summary: "s", text: null, annotations_count: 0, annotations_url: "u" } }],
  });
}

function posts(name: string, head = HEAD): Fixture[] {
  return requests("POST", /check-runs$/).map((r) => r.body as Fixture).filter((b) => b.name === name && b.head_sha === head && b.status === "completed");
}

function replies(): string[] {
  return requests("POST", /issues\/2\/comments$/).map((r) => (r.body as Fixture).body as string);
}

describe("/ranex override by a maintainer with no hand in the change", () => {
  it("turns ranex/judge green with the reason, keeps the measured FAIL in full, leaves ranex/approval waiting, and is journalled signed", async () => {
    const { probot, runner, api, dataDir, verdictId } = await failed();
    mockAsk(api, {});
    mockJudgeRun(api, verdictId);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 43 });
    mockPolicy(api);
    mockFacts(api, {});
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment(`/ranex override ${REASON}`) as never });
    await runner.idle();

    const [judge] = posts("ranex/judge");
    expect(judge).toMatchObject({ status: "completed", conclusion: "success", output: { title: `OVERRIDDEN by @maria: ${REASON}` } });
    const summary = judge!.output.summary as string;
    expect(summary).toMatch(/^## ⚠️ OVERRIDDEN by @maria\n\n> The runner is not supported/);
    // The measured verdict stays in full: its failing claim and its finding.
    expect(summary).toContain("## The measured verdict, as signed");
    expect(summary).toContain("| `diff.scope` | ❌ fail |");
    expect(judge!.output.text).toContain("tests/test_calc.py");
    expect(judge!.output.text).toContain("<!-- ranex-journal-anchor v1 -->");
    const approvals = posts("ranex/approval");
    expect(approvals.at(-1)).toMatchObject({ conclusion: "action_required", output: { title: "waiting for an independent approval of ec26c3e (judge overridden)" } });
    expect(approvals.at(-1)!.output.summary).toContain("An override is not an approval");
    expect(replies()).toEqual([]);

    const entries = await journalEntries(dataDir);
    expect(entries.map((e) => e.kind)).toEqual(["verdict", "override"]);
    const statement = statementOf(entries[1]!.payload);
    expect(statement?.predicateType).toBe(OVERRIDE_PREDICATE_TYPE);
    expect(statement?.predicate).toMatchObject({
      repository: "Codertocat/Hello-World", pullRequest: 2, head: HEAD, base: BASE, by: "maria", role: "maintain", reason: REASON,
      overrides: { entry: verdictId, verdict: "FAIL", failing: [expect.objectContaining({ name: "diff.scope", status: "fail" })] },
    });
    expect(judge!.external_id).toBe(entries[1]!.id);
    const journal = await openJournal({ dataDir });
    expect(await journal.verify()).toMatchObject({ ok: true, count: 2 });
    await journal.close();
  });

  it("is completed by an independent approval, which is signed beside the override, never as a PASS", async () => {
    const { probot, runner, api, dataDir, verdictId } = await failed();
    mockAsk(api, {});
    mockJudgeRun(api, verdictId);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 43 });
    mockPolicy(api);
    mockFacts(api, {});
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment(`/ranex override ${REASON}`) as never });
    await runner.idle();
    const overrideId = (await journalEntries(dataDir))[1]!.id;
    mockCheckRuns(api, { conclusion: "success", externalId: overrideId });
    mockPolicy(api);
    mockFacts(api, { reviews: [reviewOf(11, "maria")], roles: { maria: "maintain" } });
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "pull_request_review", payload: reviewEvent("submitted", "maria") as never });
    await runner.idle();
    expect(posts("ranex/approval").at(-1)).toMatchObject({ conclusion: "success", output: { title: "approved by @maria on ec26c3e" } });
    const entries = await journalEntries(dataDir);
    expect(entries.map((e) => e.kind)).toEqual(["verdict", "override", "approval"]);
    expect(statementOf(entries[2]!.payload)?.predicate).toMatchObject({ judgeEntry: verdictId, override: overrideId, verdict: { verdict: "FAIL" } });
  });

  it("ends at the next push: the new head's measured verdict is posted, not the override", async () => {
    const { probot, runner, api, verdictId } = await failed();
    mockAsk(api, {});
    mockJudgeRun(api, verdictId);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 43 });
    mockPolicy(api);
    mockFacts(api, {});
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment(`/ranex override ${REASON}`) as never });
    await runner.idle();
    expect(posts("ranex/judge")[0]?.conclusion).toBe("success");

    mockJudgment(api, NEW_HEAD);
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened(NEW_HEAD, "pull_request.synchronize") as never });
    await runner.idle();
    const measured = requests("PATCH", /check-runs\/42$/).map((r) => r.body as Fixture).filter((b) => b.status === "completed").at(-1);
    expect(measured).toMatchObject({ conclusion: "failure" });
    expect(measured!.output.title).toMatch(/^FAIL \(incomplete\)/);
    expect(measured!.output.title).not.toContain("OVERRIDDEN");
    expect(posts("ranex/approval", NEW_HEAD).at(-1)).toMatchObject({ conclusion: "failure", output: { title: "the judge says FAIL" } });
  });

  it("ends when the base moves on: the measured FAIL is posted again on the head, saying why", async () => {
    const { probot, runner, api, verdictId, dataDir } = await failed();
    mockAsk(api, {});
    mockJudgeRun(api, verdictId);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 43 });
    mockPolicy(api);
    mockFacts(api, {});
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment(`/ranex override ${REASON}`) as never });
    await runner.idle();
    const TIP = "6113728f27ae82c7b1a177c8d03f9e96e0adf246";
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 46 });
    mockApprovalCheck(api);
    mockPolicy(api, policyText(), TIP);
    await probot.receive({ id: deliveryId(), name: "push", payload: payload("push") as never });
    await runner.idle();
    const again = posts("ranex/judge").at(-1);
    expect(again).toMatchObject({ conclusion: "failure", external_id: verdictId });
    expect(again!.output.title).toMatch(/^FAIL \(incomplete\)/);
    expect(again!.output.summary).toContain("The override by @maria ended: `master` moved on from `f95f852` to `6113728`");
    expect(posts("ranex/approval").at(-1)).toMatchObject({ conclusion: "failure", output: { title: "the judge says FAIL" } });
    // A second push changes nothing more: the override has ended already.
    mockPolicy(api, policyText(), TIP);
    await probot.receive({ id: deliveryId(), name: "push", payload: payload("push") as never });
    await runner.idle();
    expect((await journalEntries(dataDir)).map((e) => e.kind)).toEqual(["verdict", "override"]);
  });

  it("stays with the same inputs posted again (a reopened PR), and a re-judgment ends it", async () => {
    const { probot, runner, api, verdictId } = await failed();
    mockAsk(api, {});
    mockJudgeRun(api, verdictId);
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 43 });
    mockPolicy(api);
    mockFacts(api, {});
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment(`/ranex override ${REASON}`) as never });
    await runner.idle();

    // The same head, base, policy and task: the recorded verdict with its override, on the new check run.
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 44 });
    mockPolicy(api);
    api.patch(`${REPO}/check-runs/44`).times(2).reply(200, {});
    mockPolicy(api);
    mockFacts(api, {});
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened(HEAD, "pull_request.reopened") as never });
    await runner.idle();
    const again = requests("PATCH", /check-runs\/44$/).map((r) => r.body as Fixture).at(-1);
    expect(again).toMatchObject({ conclusion: "success", output: { title: `OVERRIDDEN by @maria: ${REASON}` } });

    // /ranex rejudge by a maintainer measures again: the new verdict has no override.
    api.get(`${REPO}/pulls/2`).reply(200, { ...pullOf(2), body: null, labels: [], draft: false, base: { sha: BASE, ref: "master", repo: { name: "Hello-World", owner: { login: "Codertocat" }, clone_url: "https://github.com/Codertocat/Hello-World.git" } }, head: { sha: HEAD, ref: "agent/fix" } });
    mockPolicy(api);
    api.get(`${REPO}/collaborators/maria/permission`).reply(200, { permission: "write", role_name: "maintain", user: null });
    api.post(`${REPO}/issues/comments/492700400/reactions`).reply(201, { id: 1, content: "eyes" });
    api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 45 });
    mockPolicy(api);
    api.patch(`${REPO}/check-runs/45`).times(2).reply(200, {});
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment("/ranex rejudge") as never });
    await runner.idle();
    expect(requests("PATCH", /check-runs\/45$/).map((r) => r.body as Fixture).at(-1)).toMatchObject({ conclusion: "failure" });
  });
});

describe("/ranex override by anyone else", () => {
  const cases: [string, string, Parameters<typeof mockAsk>[1] | null, RegExp][] = [
    ["the agent itself", AGENT, null, /@agent-bot\[bot\] is not a human account.*\n- @agent-bot\[bot\] opened this pull request/],
    ["the PR's author, even an admin", "dave", { login: "dave", role: "admin", author: "dave" }, /@dave opened this pull request/],
    ["an operator, even an admin", "carol", { login: "carol", role: "admin" }, /@carol runs the agents/],
    ["a pusher with maintain", "maria", { timeline: [{ event: "head_ref_force_pushed", actor: { login: "maria" }, commit_id: HEAD }] }, /@maria pushed commits to this pull request/],
    ["a committer with maintain", "maria", { commits: [commitOf("a".repeat(40), agentId, "Add mul", maria)] }, /@maria committed aaaaaaa/],
    ["a co-author with maintain", "maria", { commits: [commitOf("a".repeat(40), agentId, "Add mul\n\nCo-authored-by: Maria M <maria@example.com>")] }, /@maria is a Co-authored-by of commit aaaaaaa/],
    ["a write-only collaborator", "wendy", { login: "wendy", role: "write" }, /@wendy has write permission; an override needs maintain or admin/],
    ["a stranger", "sam", { login: "sam", role: null }, /@sam is not a collaborator/],
    ["anyone when the policy forbids overrides", "maria", { policy: policyText("override:\n  allowed: false\n") }, /overrides are turned off/],
  ];
  it.each(cases)("refuses %s with a reply, and nothing changes", async (_who, login, ask, reason) => {
    const { probot, runner, api, dataDir } = await failed();
    if (ask === null) {
      // The author is a bot here: refused for both, from the facts alone.
      mockAsk(api, { login: AGENT, role: "admin" });
    } else {
      mockAsk(api, ask);
      // A co-author is matched by the public profile when a trailer names no account.
      if (ask.commits?.[0]?.commit.message.includes("Co-authored-by")) api.get(`/users/${login}`).reply(200, { login, id: 5, type: "User", name: "Maria M", email: "maria@example.com" });
    }
    api.post(`${REPO}/issues/2/comments`).reply(201, { id: 9 });
    const before = requests("POST", /check-runs$/).length;
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment(`/ranex override ${REASON}`, login, login.endsWith("[bot]") ? "Bot" : "User") as never });
    await runner.idle();
    expect(replies()).toHaveLength(1);
    expect(replies()[0]).toMatch(/^Not overridden; nothing changed\./);
    expect(replies()[0]).toMatch(reason);
    expect(requests("POST", /check-runs$/)).toHaveLength(before);
    expect((await journalEntries(dataDir)).map((e) => e.kind)).toEqual(["verdict"]);
  });

  it("refuses an override without a reason before asking GitHub anything", async () => {
    const { probot, runner, api, dataDir } = await failed();
    api.post(`${REPO}/issues/2/comments`).reply(201, { id: 9 });
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment("/ranex override lgtm") as never });
    await runner.idle();
    expect(replies()[0]).toMatch(/an override needs its reason, at least a sentence/);
    expect((await journalEntries(dataDir)).map((e) => e.kind)).toEqual(["verdict"]);
  });

  it("refuses to override a CANDIDATE: there is no FAIL to override", async () => {
    const { probot, runner, api, dataDir } = await mergeApp();
    mockJudgment(api);
    mockProtected(api);
    mockFacts(api, {});
    mockApprovalCheck(api);
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: opened() as never });
    await runner.idle();
    const [verdict] = await journalEntries(dataDir);
    mockAsk(api, {});
    mockJudgeRun(api, verdict!.id, "success");
    api.post(`${REPO}/issues/2/comments`).reply(201, { id: 9 });
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment(`/ranex override ${REASON}`) as never });
    await runner.idle();
    expect(replies()[0]).toMatch(/found `ec26c3e` CANDIDATE: there is no FAIL to override/);
    expect((await journalEntries(dataDir)).map((e) => e.kind)).toEqual(["verdict"]);
  });
});
