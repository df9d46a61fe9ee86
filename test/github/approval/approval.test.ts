import { describe, expect, it } from "vitest";
import { dataDirKey, publicKeyPem, statementOf } from "../../../src/attest/index.js";
import { APPROVAL_PREDICATE_TYPE } from "../../../src/github/approval/deps.js";
import { openJournal } from "../../../src/journal/index.js";
import { deliveryId, FIXED_TIME, requests, useStrictNock, type Fixture } from "../../helpers/probot.js";
import {
  AGENT, agentId, BASE, commitOf, HEAD, journalEntries, mergeApp, mockCheckRuns, mockFacts, mockPolicy, mockProtected,
  OLD_HEAD, policyText, REPO, reviewEvent, reviewOf, type Facts,
} from "./helpers.js";

useStrictNock();

/** The app with the judge's CANDIDATE for HEAD already in its journal, as after a judgment. */
async function withCandidate() {
  const app = await mergeApp();
  const judgment = await app.stand.judge({ source: "x", base: BASE, head: HEAD, task: null, dataDir: app.dataDir, repository: "Codertocat/Hello-World" }, new AbortController().signal);
  expect(judgment.verdict.verdict).toBe("CANDIDATE");
  const recorded = await app.journal.record(judgment, { repository: "Codertocat/Hello-World", ref: "refs/pull/2/head", time: FIXED_TIME.toISOString() });
  return { ...app, judgeEntry: recorded.journalId };
}

interface Case {
  facts: Facts;
  policy?: string;
  reviewer?: string;
  edit?: (p: Fixture) => void;
}

/** One review event through the app; returns the approval check body it posted (or null). */
async function review(c: Case, action: "submitted" | "edited" | "dismissed" = "submitted", existing?: Fixture) {
  const app = await withCandidate();
  mockProtected(app.api);
  mockCheckRuns(app.api, { externalId: app.judgeEntry }, existing);
  mockPolicy(app.api, c.policy ?? policyText());
  mockFacts(app.api, c.facts);
  if (existing === undefined) app.api.post(`${REPO}/check-runs`).reply(201, { id: 77 });
  else app.api.patch(`${REPO}/check-runs/77`).reply(200, {});
  await app.probot.receive({ id: deliveryId(), name: "pull_request_review", payload: reviewEvent(action, c.reviewer ?? "alice", c.edit) as never });
  const posted = [...requests("POST", /check-runs$/), ...requests("PATCH", /check-runs\/77$/)];
  expect(posted).toHaveLength(1);
  return { app, body: posted[0]!.body as Fixture };
}

const alice = (extra: Facts = {}): Facts => ({ reviews: [reviewOf(11, "alice")], roles: { alice: "write" }, ...extra });

describe("ranex/approval on a review", () => {
  it("completes success naming the approver, signed and journalled as kind approval", async () => {
    const { app, body } = await review({ facts: alice() });
    expect(body).toMatchObject({ name: "ranex/approval", head_sha: HEAD, status: "completed", conclusion: "success", output: { title: "approved by @alice on ec26c3e" } });
    expect(body.output.summary).toContain("## ✅ Approved by @alice (review 11)");
    const [verdict, approval] = await journalEntries(app.dataDir);
    expect(approval?.kind).toBe("approval");
    expect(body.external_id).toBe(approval?.id);
    const statement = statementOf(approval?.payload);
    expect(statement?.predicateType).toBe(APPROVAL_PREDICATE_TYPE);
    expect(statement?.subject[0]?.digest.gitCommit).toBe(HEAD);
    expect(statement?.predicate).toMatchObject({
      repository: "Codertocat/Hello-World", pullRequest: 2, head: HEAD, approvers: [{ login: "alice", reviewId: 11 }],
      judgeEntry: verdict?.id, journal: { sequence: verdict?.sequence, hash: verdict?.hash },
      verdict: { verdict: "PASS", missing: [], claims: [{ name: "diff.frozen", status: "pass" }, { name: "approval.independent", status: "pass", reason: `approved by alice on ${HEAD}` }] },
    });
    const journal = await openJournal({ dataDir: app.dataDir });
    const check = await journal.verify({ publicKeyPem: publicKeyPem((await dataDirKey(app.dataDir)).publicKey) });
    await journal.close();
    expect(check).toMatchObject({ ok: true, count: 2 });
  });

  it.each<[string, Case, string]>([
    ["the PR author", { facts: alice({ pull: { author: "alice" } }), edit: (p) => { p.pull_request.user.login = "alice"; } }, "opened this pull request"],
    ["a commit author", { facts: alice({ commits: [commitOf("a".repeat(40), { login: "alice", name: "Alice", email: "alice@example.com" })] }) }, "authored commit aaaaaaa"],
    ["a committer", { facts: alice({ commits: [commitOf("c".repeat(40), agentId, "x", { login: "alice", name: "Alice", email: "a@example.com" })] }) }, "committed ccccccc"],
    ["a co-author by no-reply e-mail", {
      facts: alice({ commits: [commitOf("a".repeat(40), agentId, "Add mul\n\nCo-authored-by: A <583231+alice@users.noreply.github.com>")], profiles: { alice: { name: null, email: null } } }),
    }, "is a Co-authored-by of commit aaaaaaa"],
    ["a co-author by plain e-mail", {
      facts: alice({ commits: [commitOf("a".repeat(40), agentId, "Add mul\n\nCo-authored-by: A. Person <alice@corp.example>")], profiles: { alice: { name: "Alice Liddell", email: "alice@corp.example" } } }),
    }, "is a Co-authored-by of commit aaaaaaa"],
    ["an agent operator", { reviewer: "carol", facts: { reviews: [reviewOf(12, "carol")], roles: { carol: "admin" } } }, "runs the agents (agents.operators in .github/ranex.yml)"],
    ["a bot", { reviewer: "helper[bot]", facts: { reviews: [reviewOf(13, "helper[bot]", "APPROVED", HEAD, "Bot")] } }, "is not a human account (type Bot)"],
    ["an approval of an older sha", { facts: { reviews: [reviewOf(11, "alice", "APPROVED", OLD_HEAD)] } }, "approved commit 0d1c2b3, not the head ec26c3e"],
    ["missing permission", { facts: alice({ roles: { alice: "triage" } }) }, "has triage permission; approving needs write, maintain or admin"],
    ["a stranger", { facts: alice({ roles: { alice: null } }) }, "is not a collaborator; approving needs write, maintain or admin"],
  ])("is action_required when the only approver is %s", async (_who, c, reason) => {
    const { app, body } = await review(c);
    expect(body).toMatchObject({ name: "ranex/approval", head_sha: HEAD, conclusion: "action_required", output: { title: "waiting for an independent approval of ec26c3e" } });
    expect(body.output.summary).toMatch(new RegExp(`- @${(c.reviewer ?? "alice").replace(/[[\]]/g, "\\$&")} \\(review \\d+\\): ${reason.replace(/[()]/g, "\\$&")}$`, "m"));
    // Everyone with a hand in the change is listed as unable to approve, the PR's author first.
    expect(body.output.summary).toContain(`- @${c.edit === undefined ? AGENT : "alice"}: opened this pull request`);
    expect((await journalEntries(app.dataDir)).map((e) => e.kind)).toEqual(["verdict"]);
  });

  it("accepts a member of an approval team who lacks write permission", async () => {
    const policy = policyText("approval:\n  teams: [Codertocat/reviewers]\n");
    const { body } = await review({ policy, facts: alice({ roles: { alice: "read" }, teams: { "Codertocat/reviewers:alice": true } }) });
    expect(body).toMatchObject({ conclusion: "success", output: { title: "approved by @alice on ec26c3e" } });
  });

  it("refuses a reader who is not in the approval team, naming the team", async () => {
    const policy = policyText("approval:\n  teams: [Codertocat/reviewers]\n");
    const { body } = await review({ policy, facts: alice({ roles: { alice: "read" }, teams: { "Codertocat/reviewers:alice": false } }) });
    expect(body.conclusion).toBe("action_required");
    expect(body.output.summary).toContain("has read permission; approving needs write, maintain or admin, or membership in Codertocat/reviewers");
  });

  it("counts two approvals where one is disqualified as one, short of approval.count 2", async () => {
    const policy = policyText("approval:\n  count: 2\n");
    const commits = [commitOf("a".repeat(40), { login: "bob", name: "Bob", email: "bob@example.com" })];
    const { body } = await review({ policy, facts: { commits, reviews: [reviewOf(11, "alice"), reviewOf(14, "bob")], roles: { alice: "write", bob: "maintain" } } });
    expect(body.conclusion).toBe("action_required");
    expect(body.output.summary).toContain("1 of 2 so far (@alice)");
    expect(body.output.summary).toContain("- @bob (review 14): authored commit aaaaaaa");
  });

  it("goes back to action_required when the approval is dismissed", async () => {
    const existing = { conclusion: "success", output: { title: "approved by @alice on ec26c3e", summary: "approved" } };
    const { body } = await review({ facts: { reviews: [reviewOf(11, "alice", "DISMISSED")] } }, "dismissed", existing);
    expect(body).toMatchObject({ status: "completed", conclusion: "action_required" });
    expect(body.output.summary).toContain("- @alice (review 11): their approval was dismissed");
  });

  it("writes nothing when an edited review changes nothing: no second check, no second journal entry", async () => {
    const app = await withCandidate();
    mockProtected(app.api);
    mockCheckRuns(app.api, { externalId: app.judgeEntry }, { conclusion: "success", output: { title: "approved by @alice on ec26c3e", summary: "s" } });
    mockPolicy(app.api);
    mockFacts(app.api, alice());
    await app.probot.receive({ id: deliveryId(), name: "pull_request_review", payload: reviewEvent("edited", "alice") as never });
    expect(requests("POST", /check-runs/)).toHaveLength(0);
    expect(requests("PATCH", /check-runs/)).toHaveLength(0);
    expect((await journalEntries(app.dataDir)).map((e) => e.kind)).toEqual(["verdict"]);
  });

  it("fails closed when the judge's check names no entry of this gate's journal", async () => {
    const app = await mergeApp();
    mockProtected(app.api);
    mockCheckRuns(app.api, { externalId: "forged-by-another-app" });
    app.api.post(`${REPO}/check-runs`).reply(201, { id: 77 });
    await app.probot.receive({ id: deliveryId(), name: "pull_request_review", payload: reviewEvent("submitted", "alice") as never });
    const body = requests("POST", /check-runs$/)[0]?.body as Fixture;
    expect(body).toMatchObject({ name: "ranex/approval", conclusion: "failure", output: { title: "error: the judge's verdict for ec26c3e is not in this gate's journal" } });
  });

  it("leaves a FAIL or a not-agent head alone: its approval check already says so", async () => {
    for (const conclusion of ["failure", "neutral"]) {
      const app = await mergeApp();
      mockProtected(app.api);
      mockCheckRuns(app.api, { conclusion, externalId: "x" });
      await app.probot.receive({ id: deliveryId(), name: "pull_request_review", payload: reviewEvent("submitted", "alice") as never });
    }
    expect(requests("POST", /check-runs$/)).toHaveLength(0);
  });
});
