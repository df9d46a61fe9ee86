import { generateKeyPairSync, createHmac, randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import type { Logger } from "probot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startRanex, type Running } from "../../src/ops/boot.js";
import { agentPullClone } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { CheckRunsMock } from "../helpers/check-runs-mock.js";
import { githubApi, payload, useStrictNock } from "../helpers/probot.js";
import { adminSql, freshSchema, postgresAvailable, skippedName, urlInSchema } from "../helpers/postgres.js";

// The real server (webhook endpoint, SQLite queue, worker, real judge in bubblewrap, journal, the
// Octokit it acts with) in this process, GitHub mocked at the HTTP layer (strict, bodies checked
// against GitHub's OpenAPI description), and the server's clock injected: an outage of check run
// writes lasts minutes of that clock, and the retries' waits pass it at once (issue 21).

useStrictNock();

// The 40-minute outage runs on both stores: with Postgres the refused check run is kept in the
// shared tables, where any replica's sweep finds it.
const SCHEMA = freshSchema("outage");
const withPostgres = await postgresAvailable();
const backends: [string, (() => string) | undefined][] = [["sqlite", undefined], ...(withPostgres ? [["postgres", () => urlInSchema(SCHEMA)] as [string, () => string]] : [])];
if (!withPostgres) describe.skip(skippedName("outage on postgres"), () => it.skip("needs a reachable RANEX_TEST_DATABASE_URL", () => undefined));

const OWNER = "Codertocat";
const REPO = `/repos/${OWNER}/Hello-World`;
const APP_ID = 123;
const SECRET = "outage-secret";
const PRIVATE_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
const MINUTE = 60_000;

let clone: string;
let base: string;
let head: string;

afterAll(async () => {
  if (withPostgres) await adminSql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; DROP SCHEMA IF EXISTS ${SCHEMA}_pgboss CASCADE`);
});

beforeAll(async () => {
  if (withPostgres) await adminSql(`CREATE SCHEMA ${SCHEMA}`);
  // A head that breaks a test that passed on the base: only measuring finds its FAIL.
  clone = await agentPullClone("python-calc", [["regression", 2]]);
  base = git(clone, "rev-parse", "main");
  head = git(clone, "rev-parse", "refs/pull/2/head");
}, 120_000);

/** The server's clock: waits pass it at once, so half an hour of retries takes milliseconds. */
class FakeTime {
  ms = Date.parse("2026-02-03T04:05:06Z");
  readonly now = (): number => this.ms;
  readonly sleep = async (ms: number): Promise<void> => {
    this.ms += ms;
    await new Promise((resolve) => setImmediate(resolve));
  };
}

interface Server { running: Running; url: string; time: FakeTime; logs: string[]; checks: CheckRunsMock }
let server: Server | null = null;

afterEach(async () => {
  await server?.running.close(1000);
  server = null;
});

async function start(options: { sweep?: boolean; judging?: boolean; databaseUrl?: string; mergeGroup?: { head: string; ref: string } } = {}): Promise<Server> {
  const time = new FakeTime();
  const logs: string[] = [];
  const checks = new CheckRunsMock(REPO, APP_ID);
  const api = githubApi().persist();
  if (options.mergeGroup !== undefined) mockGroup(api, options.mergeGroup.head, options.mergeGroup.ref);
  if (options.sweep === true) mockSweep(api);
  if (options.sweep === true || options.judging !== false) {
    api.post("/app/installations/1/access_tokens").reply(201, { token: "ghs_outage", expires_at: "2099-01-01T00:00:00Z", permissions: { checks: "write", contents: "read" }, repository_selection: "all" });
  }
  if (options.judging === false) return started(time, logs, checks, api, options.sweep === true, options.databaseUrl);
  api.get(`${REPO}/contents/.github%2Franex.yml`).query({ ref: base }).reply(200, { type: "file", encoding: "base64", content: Buffer.from(git(clone, "show", `${base}:.github/ranex.yml`)).toString("base64") });
  // Branch protection requires both checks: no decoration notice (a merge group's judgment reads none).
  if (options.mergeGroup === undefined) api.get(`${REPO}/branches/master/protection/required_status_checks`).reply(200, {
    url: "u", strict: false, contexts: ["ranex/judge", "ranex/approval"], contexts_url: "u",
    checks: [{ context: "ranex/judge", app_id: APP_ID }, { context: "ranex/approval", app_id: APP_ID }],
  });
  return started(time, logs, checks, api, options.sweep === true, options.databaseUrl);
}

async function started(time: FakeTime, logs: string[], checks: CheckRunsMock, api: ReturnType<typeof githubApi>, list: boolean, databaseUrl?: string): Promise<Server> {
  checks.install(api, { list, get: list });
  const log = pino({ level: process.env.OUTAGE_LOG ?? "info" }, new Writable({ write: (chunk, _enc, done) => { logs.push(String(chunk)); done(); } })) as unknown as Logger;
  const running = await startRanex({
    appId: APP_ID, privateKey: PRIVATE_KEY, webhookSecret: SECRET, baseUrl: "https://api.github.com", dataDir: tempDir("ranex-outage-"), port: 0, host: "127.0.0.1",
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
  }, { webhooks: true, concurrency: 1, reconcileMinutes: 0, log, time: { now: time.now, sleep: time.sleep } });
  server = { running, url: `http://127.0.0.1:${running.port}`, time, logs, checks };
  return server;
}

/** What a reconcile sweep reads: the app's one installation, its repository, PR 2 open at the head. */
function mockSweep(api: ReturnType<typeof githubApi>): void {
  const event = pullEvent();
  api.get("/app/installations").query({ per_page: 100 }).reply(200, [{ id: 1, account: { login: OWNER }, suspended_at: null }]);
  api.get("/installation/repositories").query({ per_page: 100 }).reply(200, { total_count: 1, repositories: [event.repository] });
  api.get(`${REPO}/pulls`).query({ state: "open", per_page: 100 }).reply(200, [event.pull_request]);
}

/** What judging a merge group reads: its commits between base and head, the queue's branches, its pull request. */
function mockGroup(api: ReturnType<typeof githubApi>, groupHead: string, queueRef: string): void {
  api.get(`${REPO}/compare/${base}...${groupHead}`).query({ per_page: 100, page: 1 }).reply(200, {
    status: "ahead", ahead_by: 1, behind_by: 0, total_commits: 1, files: [],
    commits: [{ sha: groupHead, commit: { message: "Merge pull request #2 from Codertocat/agent/regression" }, parents: [{ sha: base }, { sha: head }] }],
  });
  api.get(`${REPO}/git/matching-refs/heads%2Fgh-readonly-queue%2Fmaster%2F`).query({ per_page: 100 }).reply(200, [{ ref: queueRef, object: { sha: groupHead, type: "commit" } }]);
  api.get(`${REPO}/pulls/2`).reply(200, pullEvent().pull_request);
}

function pullEvent(edit: (p: Record<string, any>) => void = () => {}): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return payload("pull_request.opened", (p) => {
    p.number = 2;
    p.pull_request.number = 2;
    p.pull_request.head.sha = head;
    p.pull_request.head.ref = "agent/regression";
    p.pull_request.base.sha = base;
    p.pull_request.body = "Refactors calc.";
    p.repository.clone_url = clone;
    p.installation = { id: 1 };
    edit(p);
  });
}

async function deliver(s: Server, body: unknown, event = "pull_request"): Promise<number> {
  const text = JSON.stringify(body);
  const res = await fetch(`${s.url}/api/github/webhooks`, {
    method: "POST", body: text,
    headers: { "content-type": "application/json", "x-github-event": event, "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(text).digest("hex")}` },
  });
  await res.text();
  return res.status;
}

/** Waits (real time) until the queue has nothing queued or running. */
async function drained(s: Server): Promise<void> {
  for (let i = 0; i < 1200; i += 1) {
    const depth = await s.running.queue.depth();
    if (depth.queued === 0 && depth.active === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the queue did not drain:\n${s.logs.slice(-20).join("")}`);
}

/** Refuses check run updates (500) while the server's clock is inside [from, from + minutes). */
function outage(s: Server, minutes: number, write: "update" | "create" = "update"): { from: number; until: number } {
  const window = { from: s.time.ms, until: s.time.ms + minutes * MINUTE };
  s.checks.fault = (kind, body) => (kind === write && body.status === "completed" && s.time.ms < window.until ? { status: 500 } : null);
  return window;
}

describe("check run writes through a GitHub outage", () => {
  it("a 5-minute outage of check run writes mid-judgment ends with the real verdict posted", async () => {
    const s = await start();
    const window = outage(s, 5);
    expect(await deliver(s, pullEvent())).toBe(202);
    await drained(s);
    const [run] = s.checks.of(head);
    expect(run).toMatchObject({ status: "completed", conclusion: "failure", external_id: expect.any(String) });
    expect(run!.output?.title).toMatch(/^FAIL \(incomplete\): tests\.regression/);
    // Created in progress, then completed: the refused completions were retried, not judged again.
    expect(run!.bodies.map((b) => b.status)).toEqual(["in_progress", "completed"]);
    expect(s.checks.attempts.filter(([, status]) => status === 500).length).toBeGreaterThan(3);
    expect(s.time.ms).toBeGreaterThanOrEqual(window.until);
    expect(s.time.ms - window.from).toBeLessThan(30 * MINUTE);
  }, 180_000);

  it.each(backends)("a 40-minute outage ends with the check completed by the sweep, naming the outage (%s)", async (_name, databaseUrl) => {
    const s = await start({ sweep: true, ...(databaseUrl === undefined ? {} : { databaseUrl: databaseUrl() }) });
    const window = outage(s, 40);
    expect(await deliver(s, pullEvent())).toBe(202);
    await drained(s);
    // The worker tried for its whole window (30 minutes), then left the run to the sweep.
    const [run] = s.checks.of(head);
    expect(run).toMatchObject({ status: "in_progress" });
    expect(s.logs.join("")).toContain("left to the reconcile sweep");
    expect(s.logs.join("")).not.toContain("the queue will try again");
    // A sweep while GitHub still refuses: one try, nothing waited out; the next sweep tries again.
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 0 });
    expect(run).toMatchObject({ status: "in_progress" });
    s.time.ms = window.until;
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 1, queued: 0 });
    // The measured verdict the journal holds, with the outage named; never judged again.
    expect(run).toMatchObject({ status: "completed", conclusion: "failure", external_id: expect.any(String) });
    expect(run!.output?.title).toMatch(/^FAIL \(incomplete\): tests\.regression/);
    expect(run!.output?.summary).toContain("Posted late by the reconcile sweep: GitHub refused check run writes for 40 minutes (HTTP 500)");
    expect(s.checks.of(head)).toHaveLength(1);
    // Nothing is left for a later sweep.
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 0, queued: 0 });
  }, 180_000);

  it("four 502s on the status update still end with the measured verdict", async () => {
    const s = await start();
    let refused = 0;
    s.checks.fault = (kind, body) => (kind === "create" && body.status === "in_progress" && refused++ < 4 ? { status: 502 } : null);
    expect(await deliver(s, pullEvent())).toBe(202);
    await drained(s);
    const [run] = s.checks.of(head);
    expect(refused).toBeGreaterThanOrEqual(4);
    expect(run).toMatchObject({ status: "completed", conclusion: "failure", external_id: expect.any(String) });
    expect(run!.output?.title).toMatch(/^FAIL \(incomplete\): tests\.regression/);
    expect(run!.output?.title).not.toMatch(/error/);
  }, 180_000);

  it("completes a run another process left in progress past the deadline as a FAIL naming why", async () => {
    const s = await start({ sweep: true, judging: false });
    const planted = s.checks.plant({ name: "ranex/judge", head_sha: head, status: "in_progress", conclusion: null, started_at: new Date(s.time.ms - 80 * MINUTE).toISOString(), app: { id: APP_ID } });
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 1, queued: 0 });
    expect(planted).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(planted.output?.title).toBe("FAIL: this check run was left in progress for 80 minutes with no verdict posted (the process judging it stopped, or GitHub refused its writes)");
  }, 60_000);

  it("a 40-minute outage during the approval decision ends with ranex/approval posted by the sweep", async () => {
    const s = await start({ sweep: true });
    const until = s.time.ms + 40 * MINUTE;
    // The verdict goes through; the approval decision that follows it is refused (created already completed).
    s.checks.fault = (kind, body) => (kind === "create" && body.name === "ranex/approval" && s.time.ms < until ? { status: 500 } : null);
    expect(await deliver(s, pullEvent())).toBe(202);
    await drained(s);
    expect(s.checks.of(head)[0]).toMatchObject({ status: "completed", conclusion: "failure", external_id: expect.any(String) });
    expect(s.checks.of(head, "ranex/approval")).toEqual([]);
    expect(s.logs.join("")).toContain("GitHub refused ranex/approval's writes for the whole window");
    // Still refused: one try, nothing waited out, nothing judged again.
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 0, queued: 0 });
    s.time.ms = until;
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 1, queued: 0 });
    // The decision that was refused (the judge says FAIL: nothing to approve), posted once, naming the outage.
    const approvals = s.checks.of(head, "ranex/approval");
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ status: "completed", conclusion: "failure", output: { title: "the judge says FAIL" } });
    expect(approvals[0]!.output?.summary).toContain("Posted late by the reconcile sweep: GitHub refused check run writes for 40 minutes (HTTP 500)");
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 0, queued: 0 });
    expect(s.checks.runs.filter((r) => r.status !== "completed")).toEqual([]);
  }, 180_000);

  it("a 40-minute outage during a merge group's judgment ends with both its checks completed", async () => {
    // The queue's commit: the pull request's head merged onto the base, on its queue branch.
    const queueRef = `refs/heads/gh-readonly-queue/master/pr-2-${base}`;
    const groupHead = git(clone, "commit-tree", `${head}^{tree}`, "-p", base, "-p", head, "-m", "Merge pull request #2 from Codertocat/agent/regression");
    git(clone, "update-ref", queueRef, groupHead);
    const s = await start({ sweep: true, mergeGroup: { head: groupHead, ref: queueRef } });
    // The pull request's own ranex/judge said FAIL: its approval in the group is decided from that.
    s.checks.plant({ name: "ranex/judge", head_sha: head, status: "completed", conclusion: "failure", app: { id: APP_ID } });
    const until = s.time.ms + 40 * MINUTE;
    s.checks.fault = (_kind, body) => (body.status === "completed" && s.time.ms < until ? { status: 500 } : null);
    const group = payload("merge_group.checks_requested", (p) => {
      const pull = pullEvent();
      p.repository = pull.repository;
      p.installation = { id: 1 };
      p.merge_group = { ...p.merge_group, head_sha: groupHead, head_ref: queueRef, base_sha: base, base_ref: "refs/heads/master" };
    });
    expect(await deliver(s, group, "merge_group")).toBe(202);
    await drained(s);
    // Created in progress (the queue starts it at once: no queued write), then the measured verdict,
    // retried through the rest of the outage; the approval, refused for its whole window, is held.
    const [judged] = s.checks.of(groupHead);
    expect(judged).toMatchObject({ status: "completed", conclusion: "failure", external_id: expect.any(String) });
    expect(judged!.output?.title).toMatch(/^FAIL \(incomplete\): tests\.regression/);
    expect(judged!.bodies.map((b) => b.status)).toEqual(["in_progress", "completed"]);
    expect(s.checks.of(groupHead, "ranex/approval")).toEqual([]);
    s.time.ms = until;
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 1, queued: 0 });
    const approvals = s.checks.of(groupHead, "ranex/approval");
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ status: "completed", conclusion: "failure", output: { title: "not approved: #2 has no qualifying approval of its head" } });
    expect(approvals[0]!.output?.summary).toMatch(/^_Posted late by the reconcile sweep: GitHub refused check run writes for \d+ minutes \(HTTP 500\)\._/);
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 0, queued: 0 });
    expect(s.checks.runs.filter((r) => r.status !== "completed")).toEqual([]);
  }, 180_000);

  it("completes any check run a delivery created and left open past the deadline: a merge group's ranex/judge and a ranex/approval", async () => {
    const s = await start({ sweep: true, judging: false });
    const longAgo = new Date(s.time.ms - 80 * MINUTE).toISOString();
    const app = { id: APP_ID };
    // PR 2's head has its verdict: nothing to queue. The rest were created by a delivery whose tries ran out.
    s.checks.plant({ name: "ranex/judge", head_sha: head, status: "completed", conclusion: "failure", app });
    const group = s.checks.plant({ name: "ranex/judge", head_sha: "a".repeat(40), status: "in_progress", conclusion: null, started_at: longAgo, app });
    const approval = s.checks.plant({ name: "ranex/approval", head_sha: "b".repeat(40), status: "queued", conclusion: null, started_at: longAgo, app });
    const recent = s.checks.plant({ name: "ranex/judge", head_sha: "c".repeat(40), status: "in_progress", conclusion: null, started_at: new Date(s.time.ms - 10 * MINUTE).toISOString(), app });
    for (const run of [group, approval, recent]) await s.running.queue.recordCheck("a-delivery-out-of-tries", OWNER, "Hello-World", run.id);
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 2, queued: 0 });
    expect(group).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(group.output?.title).toBe("FAIL: this check run was left in progress for 80 minutes with no verdict posted (the process judging it stopped, or GitHub refused its writes)");
    // No decision reached GitHub: never neutral or success, and the summary says how to decide again.
    expect(approval).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(approval.output?.title).toBe("not approved: this check run was left queued for 80 minutes with no approval decision posted (the process judging it stopped, or GitHub refused its writes)");
    expect(approval.output?.summary).toContain("Re-run on `ranex/approval`");
    // Within the deadline it is left alone (its delivery may still be running).
    expect(recent).toMatchObject({ status: "in_progress" });
    expect(await s.running.sweepNow!()).toMatchObject({ settled: 0, queued: 0 });
  }, 60_000);

  // The door refuses it before it is queued (400, src/queue/door.ts); a delivery queued before the
  // door checked it is dropped by the worker the same way (test/queue/worker.test.ts).
  it("refuses a delivery whose head is not a sha at the door, with a log line naming why, and posts nothing", async () => {
    const s = await start({ judging: false, sweep: false });
    expect(await deliver(s, pullEvent((p) => { p.pull_request.head.sha = "not-a-sha"; }))).toBe(400);
    await drained(s);
    const log = s.logs.join("");
    expect(log).toContain("is not a 40-hex commit sha");
    expect(log).not.toContain("the queue will try again");
    expect(s.checks.attempts).toEqual([]);
  }, 60_000);
});
