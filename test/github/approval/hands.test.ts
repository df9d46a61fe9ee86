import { describe, expect, it } from "vitest";
import { deliveryId, FIXED_TIME, payload, requests, useStrictNock, type Fixture } from "../../helpers/probot.js";
import {
  AGENT, agentId, BASE, commitOf, HEAD, journalEntries, mergeApp, mockApprovalCheck, mockCheckRuns, mockFacts, mockJudgment, mockPolicy,
  mockProtected, REPO, reviewEvent, reviewOf, type Facts,
} from "./helpers.js";

// Issue 14: every hand in the change counts (pushers too), a PR too long to list fails closed, and
// real reviewers are not refused (Update branch, custom roles). Each case here gave the wrong answer
// before the fix.

useStrictNock();

type App = Awaited<ReturnType<typeof mergeApp>>;

async function candidateFor(app: App, head = HEAD): Promise<string> {
  const judgment = await app.stand.judge({ source: "x", base: BASE, head, task: null, dataDir: app.dataDir, repository: "Codertocat/Hello-World" }, new AbortController().signal);
  return (await app.journal.record(judgment, { repository: "Codertocat/Hello-World", ref: "refs/pull/2/head", time: FIXED_TIME.toISOString() })).journalId;
}

/** Alice reviews PR 2 (head HEAD) with these facts; returns the ranex/approval body posted. */
async function aliceReviews(facts: Facts, app?: App): Promise<Fixture> {
  const the = app ?? await mergeApp();
  mockProtected(the.api);
  mockCheckRuns(the.api, { externalId: await candidateFor(the) });
  mockPolicy(the.api);
  mockFacts(the.api, { reviews: [reviewOf(11, "alice")], roles: { alice: "write" }, ...facts });
  the.api.post(`${REPO}/check-runs`).reply(201, { id: 77 });
  await the.probot.receive({ id: deliveryId(), name: "pull_request_review", payload: reviewEvent("submitted", "alice") as never });
  const posted = requests("POST", /check-runs$/).map((r) => r.body as Fixture).filter((b) => b.name === "ranex/approval");
  return posted.at(-1)!;
}

describe("pushers are hands in the change", () => {
  it("refuses a writer who pushed a commit written under the agent's identity and then approved it", async () => {
    const app = await mergeApp();
    // Alice pushes the agent-authored commit: GitHub names her only as the synchronize sender.
    mockJudgment(app.api);
    mockProtected(app.api);
    mockFacts(app.api, {});
    mockApprovalCheck(app.api);
    const push = payload("pull_request.synchronize", (p) => {
      p.pull_request.user.login = AGENT;
      p.sender.login = "alice";
    });
    await app.probot.receive({ id: deliveryId(), name: "pull_request", payload: push as never });
    await app.runner.idle();
    const entry = (await journalEntries(app.dataDir))[0]!.id;
    mockCheckRuns(app.api, { externalId: entry }, { conclusion: "action_required", output: { title: "waiting", summary: "s" } });
    mockPolicy(app.api);
    mockFacts(app.api, { reviews: [reviewOf(11, "alice")], roles: { alice: "admin" } });
    app.api.patch(`${REPO}/check-runs/77`).reply(200, {});
    await app.probot.receive({ id: deliveryId(), name: "pull_request_review", payload: reviewEvent("submitted", "alice") as never });
    const body = requests("PATCH", /check-runs\/77$/).at(-1)!.body as Fixture;
    expect(body.conclusion).toBe("action_required");
    expect(body.output.summary).toContain("- @alice (review 11): pushed commits to this pull request (ec26c3e)");
  });

  it("refuses a writer the timeline shows force-pushing the head branch", async () => {
    const body = await aliceReviews({ timeline: [{ id: 1, event: "head_ref_force_pushed", actor: { login: "alice", id: 3, type: "User" }, commit_id: HEAD }] });
    expect(body.conclusion).toBe("action_required");
    expect(body.output.summary).toContain("- @alice (review 11): pushed commits to this pull request (ec26c3e)");
  });

  it("refuses a person who names GitHub's web-flow address as their own committer", async () => {
    const spoof = commitOf("a".repeat(40), agentId, "Add mul", { login: "alice", name: "GitHub", email: "noreply@github.com" });
    const body = await aliceReviews({ commits: [spoof] });
    expect(body.output.summary).toContain("- @alice (review 11): committed aaaaaaa");
  });
});

describe("a pull request GitHub cannot list in full", () => {
  it("fails closed past the 250-commit listing cap, and says why", async () => {
    const body = await aliceReviews({ pull: { commits: 251 } });
    expect(body).toMatchObject({ conclusion: "failure" });
    expect(body.output.summary).toContain("- the pull request has 251 commits but GitHub listed only 1 (it lists at most 250), so not every hand in the change can be known: split the pull request");
  });
});

describe("real reviewers are not refused", () => {
  const A = "a".repeat(40);
  const BASE_TIP = "b".repeat(40);
  const alice = { login: "alice", name: "Alice", email: "alice@example.com" };
  const webFlow = { login: "web-flow", name: "GitHub", email: "noreply@github.com" };
  // HEAD is GitHub's "Update branch" merge of the base tip into the agent's commit, made by alice.
  const updateBranch = (changedFromBase: string[]): Facts => ({
    commits: [commitOf(A, agentId, "Add mul", webFlow, [BASE]), commitOf(HEAD, alice, "Merge branch 'master' into agent/fix", webFlow, [A, BASE_TIP])],
    compares: { [`${A}...${HEAD}`]: ["README.md"], [`${BASE_TIP}...${HEAD}`]: changedFromBase },
  });

  it("counts the maintainer who clicked Update branch, though she authored and pushed the merge", async () => {
    const app = await mergeApp();
    await app.authority.pushes.record({ repository: "Codertocat/Hello-World", pull: 2, login: "alice", before: A, after: HEAD });
    const body = await aliceReviews(updateBranch(["src/mul.ts"]), app);
    expect(body).toMatchObject({ conclusion: "success", output: { title: "approved by @alice on ec26c3e" } });
  });

  it("still refuses her when the merge adds content the base lacks", async () => {
    const app = await mergeApp();
    await app.authority.pushes.record({ repository: "Codertocat/Hello-World", pull: 2, login: "alice", before: A, after: HEAD });
    const body = await aliceReviews(updateBranch(["src/mul.ts", "README.md"]), app);
    expect(body.conclusion).toBe("action_required");
    expect(body.output.summary).toContain("- @alice (review 11): authored commit ec26c3e; pushed commits to this pull request (ec26c3e)");
  });

  it("counts a reviewer whose custom role inherits write", async () => {
    const body = await aliceReviews({ roles: { alice: "write:senior-reviewer" } });
    expect(body).toMatchObject({ conclusion: "success" });
  });

  it("refuses a custom role that inherits only read, naming it as read", async () => {
    const body = await aliceReviews({ roles: { alice: "read:docs-writer" } });
    expect(body.output.summary).toContain("- @alice (review 11): has read permission; approving needs write, maintain or admin");
  });
});
