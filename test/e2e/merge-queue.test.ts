import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAnchorBlock } from "../../src/journal/index.js";
import { fixtureRepo } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";
import { payload } from "../helpers/probot.js";
import { APP_ID, deliver, healthWhenIdle, PRIVATE_KEY, pullRequestPayload, startApp, waitFor, type AppProcess } from "./standin/app-process.js";
import { GitHubStandIn, type CheckRun } from "./standin/github.js";

// A merge queue round against the real server process: two agent pull requests (tasks mul and div)
// are judged on their own, queued together, and the queue's group commit, what would land, is
// judged against main with both tasks and approved only once both pull requests are.

const OWNER = "Codertocat";
const REPO = "Hello-World";
const AGENT = "copilot-swe-agent[bot]";
const github = new GitHubStandIn(APP_ID, PRIVATE_KEY);
let app: AppProcess;
let cloneUrl: string;
let base: string;

beforeAll(async () => {
  await github.start();
  cloneUrl = github.addRepo(OWNER, REPO, await fixtureRepo("python-calc"), { 2: "honest", 4: "honest-task" });
  base = github.rev(OWNER, REPO, "main");
  for (const [number, branch, task] of [[2, "honest", "mul"], [4, "honest-task", "div"]] as const) {
    github.pulls.set(`${OWNER}/${REPO}#${number}`, { number, head: github.rev(OWNER, REPO, branch), base, headRef: `agent/${branch}`, author: AGENT, body: `Ranex-Task: ${task}`, labels: [] });
  }
  github.permissions.set("monalisa", "write");
  app = await startApp(github, { dataDir: tempDir("ranex-e2e-queue-") });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await github.close();
});

function completedRun(head: string, name: string): Promise<CheckRun> {
  return waitFor(`a completed ${name} on ${head.slice(0, 7)}`, () => github.runsFor(head, name).find((r) => r.status === "completed"), 120_000, app.output);
}

function approve(number: number): void {
  const head = github.pulls.get(`${OWNER}/${REPO}#${number}`)!.head;
  github.reviews.set(`${OWNER}/${REPO}#${number}`, [{ id: 80 + number, user: { login: "monalisa", type: "User" }, state: "APPROVED", commit_id: head, body: "", submitted_at: new Date().toISOString() }]);
}

/** The merge group of the queue entry for #4, which carries #2 ahead of it: the group's last commit. */
function queueGroup(message: string): { head: string; event: Record<string, unknown> } {
  const first = github.queueEntry(OWNER, REPO, "main", 2, base, github.rev(OWNER, REPO, "honest"), `Merge pull request #2 (${message})`);
  const last = github.queueEntry(OWNER, REPO, "main", 4, first.sha, github.rev(OWNER, REPO, "honest-task"), `Merge pull request #4 (${message})`);
  const event = payload("merge_group.checks_requested", (p) => {
    p.merge_group = { ...p.merge_group, head_sha: last.sha, head_ref: last.ref, base_sha: base, base_ref: "refs/heads/main" };
    p.repository = { ...p.repository, name: REPO, full_name: `${OWNER}/${REPO}`, owner: { ...p.repository.owner, login: OWNER }, clone_url: cloneUrl };
    p.installation = { id: 1, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==" };
  });
  return { head: last.sha, event };
}

describe("a merge queue round over real HTTP", () => {
  it("judges each agent pull request on its own first", async () => {
    for (const [number, branch, task] of [[2, "honest", "mul"], [4, "honest-task", "div"]] as const) {
      const event = pullRequestPayload({ number, head: github.rev(OWNER, REPO, branch), base, headRef: `agent/${branch}`, body: `Ranex-Task: ${task}`, cloneUrl });
      expect((await deliver(app.url, "pull_request", event)).status).toBe(202);
    }
    for (const branch of ["honest", "honest-task"]) expect(await completedRun(github.rev(OWNER, REPO, branch), "ranex/judge")).toMatchObject({ conclusion: "success" });
  }, 180_000);

  it("judges the group commit CANDIDATE with both tasks, and fails ranex/approval naming the unapproved pull request", async () => {
    approve(2);
    const group = queueGroup("first try");
    expect((await deliver(app.url, "merge_group", group.event)).status).toBe(202);
    const judged = await completedRun(group.head, "ranex/judge");
    expect(judged).toMatchObject({ conclusion: "success", external_id: expect.any(String) });
    expect(judged.output?.summary).toContain("- pull requests in the group: #2, #4");
    expect(judged.output?.summary).toContain("- tasks: `div`, `mul`");
    // Its journal anchor opens the text, naming the entry its external_id names (docs/verify.md).
    expect(parseAnchorBlock(judged.output?.text)).toMatchObject({ kind: "anchor", anchor: { entry: { id: judged.external_id, kind: "verdict" } } });
    const approval = await completedRun(group.head, "ranex/approval");
    expect(approval).toMatchObject({ conclusion: "failure", output: { title: "not approved: #4 has no qualifying approval of its head" } });
    expect(github.problems).toEqual([]);
  }, 180_000);

  it("approves the group once every agent pull request is approved", async () => {
    approve(4);
    const group = queueGroup("second try");
    expect((await deliver(app.url, "merge_group", group.event)).status).toBe(202);
    const approval = await completedRun(group.head, "ranex/approval");
    expect(approval).toMatchObject({ conclusion: "success", output: { title: "approved: #2 by @monalisa; #4 by @monalisa" } });
    expect(parseAnchorBlock(approval.output?.text)).toMatchObject({ kind: "anchor", anchor: { entry: { id: approval.external_id, kind: "approval" } } });
    expect(await completedRun(group.head, "ranex/judge")).toMatchObject({ conclusion: "success" });
    expect(github.problems).toEqual([]);
  }, 180_000);

  it("cancels the judgment of a group destroyed while it runs", async () => {
    const group = queueGroup("dequeued");
    expect((await deliver(app.url, "merge_group", group.event)).status).toBe(202);
    await waitFor("the group's judgment to start", () => github.runsFor(group.head).some((r) => r.status === "in_progress"), 60_000, app.output);
    const destroyed = { ...group.event, action: "destroyed", reason: "dequeued" };
    expect((await deliver(app.url, "merge_group", destroyed)).status).toBe(202);
    const run = await completedRun(group.head, "ranex/judge");
    expect(run).toMatchObject({ conclusion: "cancelled", output: { title: "cancelled: the merge group was destroyed (dequeued)" } });
    expect((await healthWhenIdle(app.url)).queue).toEqual(expect.objectContaining({ queued: 0, active: 0 }));
    expect(github.checkRuns.filter((r) => r.status !== "completed")).toEqual([]);
    expect(github.problems).toEqual([]);
  }, 180_000);
});
