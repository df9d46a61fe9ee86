import { cpSync, readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES_DIR, fixtureRepo } from "../helpers/fixtures.js";
import { ranex } from "../cli/cli-capture.js";
import { tempDir } from "../helpers/git-repo.js";
import { APP_ID, deliver, healthWhenIdle, PRIVATE_KEY, pullRequestPayload, startApp, waitFor, type AppProcess } from "./standin/app-process.js";
import { GitHubStandIn, type CheckRun } from "./standin/github.js";

// The real server process (npm start's entry) on loopback, against a stand-in GitHub on loopback:
// signed webhooks in, the real queue, judge and journal, check runs out over real HTTP.

const OWNER = "Codertocat";
const REPO = "Hello-World";
const github = new GitHubStandIn(APP_ID, PRIVATE_KEY);
let app: AppProcess;
let cloneUrl: string;
let base: string;
let dataDir: string;

beforeAll(async () => {
  await github.start();
  cloneUrl = github.addRepo(OWNER, REPO, await fixtureRepo("python-calc"), { 2: "honest", 3: "edit-test", 4: "honest-task", 5: "scope-escape", 6: "todo-check" });
  base = github.rev(OWNER, REPO, "main");
  dataDir = tempDir("ranex-e2e-app-");
  app = await startApp(github, { dataDir });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await github.close();
});

/** The pull request's webhook, and the stand-in's own record of it (`GET /pulls/N` answers what was delivered). */
function pullEvent(number: number, branch: string, body = "") {
  const event = pullRequestPayload({ number, head: github.rev(OWNER, REPO, `refs/pull/${number}/head`), base, headRef: `agent/${branch}`, body, cloneUrl });
  const key = `${OWNER}/${REPO}#${number}`;
  const pr = event.pull_request as { head: { sha: string }; user: { login: string } };
  if (github.pulls.get(key)?.head !== pr.head.sha) {
    github.pulls.set(key, { number, head: pr.head.sha, base, headRef: `agent/${branch}`, author: pr.user.login, body, labels: [] });
  }
  return event;
}

function completed(head: string, count = 1): Promise<CheckRun[]> {
  return waitFor(`${count} completed ranex/judge run(s) on ${head.slice(0, 7)}`, () => {
    const runs = github.runsFor(head).filter((r) => r.status === "completed");
    return runs.length >= count ? runs : null;
  }, 120_000, app.output);
}

function reviewPayload(event: ReturnType<typeof pullEvent>, review: Record<string, unknown>): Record<string, unknown> {
  const p = JSON.parse(readFileSync(join(FIXTURES_DIR, "..", "webhooks", "pull_request_review.submitted.json"), "utf8")) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  p.action = "submitted";
  p.review = { ...p.review, ...review, state: "approved" };
  p.pull_request = { ...p.pull_request, ...event.pull_request };
  p.repository = event.repository;
  p.installation = event.installation;
  return p;
}

async function queueDepth(): Promise<{ queued: number; active: number }> {
  const health = await (await fetch(`${app.url}/healthz`)).json() as { queue: { queued: number; active: number } };
  return health.queue;
}

/** Waits until the queue is idle: the earlier test's jobs (the approval check after its verdict) are done. */
async function drained(): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const depth = await queueDepth();
    if (depth.queued === 0 && depth.active === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("the queue did not drain within a minute");
}

describe("the app over real HTTP", () => {
  it("judges an agent PR CANDIDATE and an attack FAIL, with a journalled, signed verdict", async () => {
    const honest = pullEvent(2, "honest", "Adds mul.\n\nRanex-Task: mul");
    const attack = pullEvent(3, "edit-test");
    const [a, b] = await Promise.all([deliver(app.url, "pull_request", honest), deliver(app.url, "pull_request", attack)]);
    expect([a.status, b.status]).toEqual([202, 202]);
    const [good] = await completed(honest.pull_request.head.sha);
    const [bad] = await completed(attack.pull_request.head.sha);
    expect(good).toMatchObject({ conclusion: "success", external_id: expect.any(String) });
    expect(good!.output?.title).toMatch(/^CANDIDATE/);
    expect(bad).toMatchObject({ conclusion: "failure" });
    expect(bad!.output?.title).toMatch(/^FAIL/);
    expect(bad!.output?.summary).toContain("diff.frozen");
    // Created in_progress (the queue starts it at once), then completed: two writes (issue 21); the
    // verdict page serves the journalled entry.
    expect(good!.bodies.map((body) => body.status)).toEqual(["in_progress", "completed"]);
    const entry = await fetch(`${app.url}/ranex/verdicts/${encodeURIComponent(good!.external_id!)}`);
    expect(entry.status).not.toBe(500);
    expect(github.problems).toEqual([]);
  }, 180_000);

  it("refuses forged and missing signatures with 401 and queues nothing", async () => {
    await drained();
    const event = pullEvent(4, "honest-task", "Ranex-Task: div");
    const forged = await deliver(app.url, "pull_request", event, { signature: `sha256=${"0".repeat(64)}` });
    const missing = await deliver(app.url, "pull_request", event, { signature: "" });
    expect([forged.status, missing.status]).toEqual([401, 401]);
    expect(await queueDepth()).toEqual(expect.objectContaining({ queued: 0 }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(github.runsFor(event.pull_request.head.sha)).toEqual([]);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/ranex_webhook_duration_seconds_count\{event="pull_request",status="401"\} 2/);
  }, 90_000);

  it("judges the same delivery once when GitHub sends it twice", async () => {
    const event = pullEvent(4, "honest-task", "Ranex-Task: div");
    const id = crypto.randomUUID();
    const first = await deliver(app.url, "pull_request", event, { id });
    const again = await deliver(app.url, "pull_request", event, { id });
    expect([first.status, again.status]).toEqual([202, 200]);
    await completed(event.pull_request.head.sha);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(github.runsFor(event.pull_request.head.sha)).toHaveLength(1);
  }, 120_000);

  it("still posts the verdict through 502s and a secondary rate limit", async () => {
    const event = pullEvent(5, "scope-escape");
    github.fault(/^POST \/repos\/[^/]+\/[^/]+\/check-runs$/, "502", 2);
    github.fault(/^PATCH \/repos\/[^/]+\/[^/]+\/check-runs\/\d+$/, "secondary-rate-limit", 2);
    github.fault(/^GET \/repos\/[^/]+\/[^/]+\/contents\//, "502", 1);
    expect((await deliver(app.url, "pull_request", event)).status).toBe(202);
    const [run] = await completed(event.pull_request.head.sha);
    expect(run).toMatchObject({ conclusion: "failure" });
    expect(run!.output?.summary).toContain("diff.scope");
    expect(github.runsFor(event.pull_request.head.sha)).toHaveLength(1);
    expect(github.problems).toEqual([]);
  }, 120_000);

  it("judges again on /ranex rejudge from a maintainer who is not the author", async () => {
    const head = github.rev(OWNER, REPO, "refs/pull/6/head");
    github.pulls.set(`${OWNER}/${REPO}#6`, { number: 6, head, base, headRef: "agent/todo-check", author: "copilot-swe-agent[bot]", body: "Ranex-Task: mul", labels: [] });
    github.permissions.set("maintainer", "maintain");
    const first = pullEvent(6, "todo-check", "Ranex-Task: mul");
    await deliver(app.url, "pull_request", first);
    await completed(head);
    const comment = JSON.parse(JSON.stringify((await import("../helpers/probot.js")).payload("issue_comment.created"))) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    comment.issue.number = 6;
    comment.issue.pull_request = { url: `${github.url}/api/v3/repos/${OWNER}/${REPO}/pulls/6` };
    comment.comment.body = "/ranex rejudge";
    comment.comment.user = { ...comment.comment.user, login: "maintainer", type: "User" };
    comment.installation = { id: 1 };
    expect((await deliver(app.url, "issue_comment", comment)).status).toBe(202);
    const runs = await completed(head, 2);
    expect(runs.map((r) => r.conclusion)).toEqual(["failure", "failure"]);
    expect(github.problems).toEqual([]);
  }, 180_000);

  it("on a push, cancels the older head's judgment as superseded (cancelled) and judges the new head", async () => {
    const older = github.pullWithOwnHead(OWNER, REPO, 7, github.rev(OWNER, REPO, "refs/heads/honest"));
    const opened = pullRequestPayload({ number: 7, head: older, base, headRef: "agent/honest", body: "Ranex-Task: mul", cloneUrl });
    expect((await deliver(app.url, "pull_request", opened)).status).toBe(202);
    await waitFor("the older head's judgment to start", () => github.runsFor(older).some((r) => r.status === "in_progress"), 60_000, app.output);
    const newer = github.pullWithOwnHead(OWNER, REPO, 7, older);
    const pushed = pullRequestPayload({ number: 7, head: newer, base, headRef: "agent/honest", body: "Ranex-Task: mul", cloneUrl, action: "synchronize" });
    expect((await deliver(app.url, "pull_request", pushed)).status).toBe(202);
    const [cancelled] = await completed(older);
    const [judged] = await completed(newer);
    // Never a passing conclusion for a head without a verdict.
    expect(cancelled).toMatchObject({ conclusion: "cancelled", output: { title: `superseded by ${newer.slice(0, 7)}` } });
    expect(judged).toMatchObject({ conclusion: "success" });
    expect(github.problems).toEqual([]);
  }, 180_000);

  it("keeps merge authority with an independent human: ranex/approval waits, then an approval of the head succeeds", async () => {
    const event = pullEvent(2, "honest", "Adds mul.\n\nRanex-Task: mul");
    const head = event.pull_request.head.sha;
    const approval = (conclusion: string) => waitFor(`ranex/approval ${conclusion} on ${head.slice(0, 7)}`, () =>
      github.runsFor(head, "ranex/approval").find((r) => r.status === "completed" && r.conclusion === conclusion), 120_000, app.output);
    await deliver(app.url, "pull_request", event);
    const waiting = await approval("action_required");
    // Created already completed, the approval check is done: the delivery is not tried again.
    expect(app.output.join("\n")).not.toContain("did not accept the completion");
    expect(waiting.output?.title).toContain(head.slice(0, 7));

    // A maintainer who had no hand in the change approves exactly this commit.
    github.permissions.set("monalisa", "write");
    const review = { id: 80, user: { login: "monalisa", type: "User" }, state: "APPROVED", commit_id: head, body: "", submitted_at: new Date().toISOString() };
    github.reviews.set(`${OWNER}/${REPO}#2`, [review]);
    const submitted = reviewPayload(event, review);
    expect((await deliver(app.url, "pull_request_review", submitted)).status).toBe(202);
    const approved = await approval("success");
    expect(approved.output?.summary ?? approved.output?.title).toContain("monalisa");
    expect(github.problems).toEqual([]);
  }, 180_000);

  it("leaves nothing queued or in progress", async () => {
    // The last job may still be posting (the approval check follows the verdict): give it time,
    // then nothing may remain.
    expect((await healthWhenIdle(app.url)).queue).toEqual(expect.objectContaining({ queued: 0, active: 0 }));
    expect(github.checkRuns.filter((r) => r.status !== "completed")).toEqual([]);
  }, 30_000);

  it("leaves its journal anchored on GitHub: verify --github holds it, and catches it cut", async () => {
    const env = { APP_ID: String(APP_ID), PRIVATE_KEY, GHE_HOST: github.url.replace(/^http:\/\//, ""), GHE_PROTOCOL: "http" };
    const intact = await ranex(["journal", "verify", "--data-dir", dataDir, "--github", `${OWNER}/${REPO}`], { env });
    expect(intact.stdout, intact.stdout).toMatch(/\d+ check runs on \d+ commits, [1-9]\d* anchored/);
    expect(intact.code).toBe(0);
    const cut = tempDir("ranex-e2e-cut-");
    cpSync(dataDir, cut, { recursive: true });
    const db = new Database(`${cut}/journal.db`);
    db.exec("DROP TRIGGER ranex_journal_no_delete; DELETE FROM ranex_journal WHERE sequence = (SELECT MAX(sequence) FROM ranex_journal)");
    db.close();
    const broken = await ranex(["journal", "verify", "--data-dir", cut, "--github", `${OWNER}/${REPO}`], { env });
    expect(broken.stdout).toMatch(/^journal BROKEN at entry \d+: check run ranex\/(judge|approval) .*it was truncated or rolled back/);
    expect(broken.code).toBe(1);
    expect(github.problems).toEqual([]);
  }, 60_000);
});
