import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureRepo } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";
import { APP_ID, deliver, PRIVATE_KEY, pullRequestPayload, ROOT, startApp, waitFor, type AppProcess } from "./standin/app-process.js";
import { GitHubStandIn, type CheckRun } from "./standin/github.js";

// The real server against the loopback GitHub stand-in, through the attacks of issue 14 and a base
// that moves on (issue 12): the same commit as the head of a second PR into a branch without a
// policy, an agent PR retargeted from such a branch to main, and main moving under a CANDIDATE.

const OWNER = "Codertocat";
const REPO = "Hello-World";
const AGENT = "copilot-swe-agent[bot]";
const github = new GitHubStandIn(APP_ID, PRIVATE_KEY);
let app: AppProcess;
let cloneUrl: string;
let main: string;
let lax: string;

beforeAll(async () => {
  await github.start();
  cloneUrl = github.addRepo(OWNER, REPO, await fixtureRepo("python-calc"), { 3: "edit-test", 10: "honest" });
  main = github.rev(OWNER, REPO, "main");
  // A branch the agent pushed: main without the policy.
  github.branch(OWNER, REPO, "lax", "main");
  lax = github.commitOnBranch(OWNER, REPO, "lax", { ".github/ranex.yml": null }, "no policy here");
  app = await startApp(github, { dataDir: tempDir("ranex-e2e-lifecycle-") });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await github.close();
});

function completed(head: string, count: number, name = "ranex/judge"): Promise<CheckRun[]> {
  return waitFor(`${count} completed ${name} run(s) on ${head.slice(0, 7)}`, () => {
    const runs = github.runsFor(head, name).filter((r) => r.status === "completed");
    return runs.length >= count ? runs : null;
  }, 150_000, app.output);
}

describe("issue 14 attacks against the real server", () => {
  it("the same commit as the head of a second PR into a branch without a policy: judged as the agent's PR, never neutral", async () => {
    const head = github.rev(OWNER, REPO, "refs/pull/3/head");
    github.pulls.set(`${OWNER}/${REPO}#3`, { number: 3, head, base: main, headRef: "agent/edit-test", author: AGENT, body: "", labels: [] });
    expect((await deliver(app.url, "pull_request", pullRequestPayload({ number: 3, head, base: main, headRef: "agent/edit-test", cloneUrl }))).status).toBe(202);
    const [own] = await completed(head, 1);
    expect(own).toMatchObject({ conclusion: "failure" });

    // The attack: a person's branch name, the same commit, a base the agent pushed without a policy.
    github.pulls.set(`${OWNER}/${REPO}#8`, { number: 8, head, base: lax, baseRef: "lax", headRef: "feature/copy", author: "Codertocat", body: "", labels: [] });
    expect((await deliver(app.url, "pull_request", pullRequestPayload({ number: 8, head, base: lax, baseRef: "lax", headRef: "feature/copy", cloneUrl }))).status).toBe(202);
    const runs = await completed(head, 2);
    expect(runs.map((r) => r.conclusion)).toEqual(["failure", "failure"]);
    expect(runs[1]!.output?.summary).toContain("This commit is also the head of #3");
    const approvals = await completed(head, 2, "ranex/approval");
    expect(approvals.map((r) => r.conclusion)).not.toContain("neutral");
    expect(github.checkRuns.filter((r) => r.head_sha === head).map((r) => r.conclusion)).not.toContain("neutral");
    expect(github.problems).toEqual([]);
  }, 240_000);

  it("an agent PR opened against the policy-less branch and retargeted to main is judged again", async () => {
    const head = github.pullWithOwnHead(OWNER, REPO, 9, "refs/heads/edit-test");
    github.pulls.set(`${OWNER}/${REPO}#9`, { number: 9, head, base: lax, baseRef: "lax", headRef: "agent/retarget", author: "Codertocat", body: "", labels: [] });
    await deliver(app.url, "pull_request", pullRequestPayload({ number: 9, head, base: lax, baseRef: "lax", headRef: "agent/retarget", cloneUrl }));
    const [first] = await completed(head, 1);
    expect(first).toMatchObject({ conclusion: "neutral", output: { title: "not an agent PR" } });

    github.pulls.set(`${OWNER}/${REPO}#9`, { number: 9, head, base: main, headRef: "agent/retarget", author: "Codertocat", body: "", labels: [] });
    const edited = pullRequestPayload({ number: 9, head, base: main, headRef: "agent/retarget", cloneUrl, action: "edited" });
    (edited as Record<string, unknown>).changes = { base: { ref: { from: "lax" }, sha: { from: lax } } };
    expect((await deliver(app.url, "pull_request", edited)).status).toBe(202);
    const runs = await completed(head, 2);
    expect(runs[1]).toMatchObject({ conclusion: "failure" });
    expect(runs[1]!.output?.summary).toContain("diff.frozen");
    expect(github.problems).toEqual([]);
  }, 240_000);
});

describe("a base that moves on", () => {
  it("says so in /ranex explain, and with tests.rejudge_on_base_push judges the agent PR again against the new tip", async () => {
    for (const n of [3, 9]) github.pulls.set(`${OWNER}/${REPO}#${n}`, { ...github.pulls.get(`${OWNER}/${REPO}#${n}`)!, state: "closed" });
    const head = github.rev(OWNER, REPO, "refs/pull/10/head");
    github.pulls.set(`${OWNER}/${REPO}#10`, { number: 10, head, base: main, headRef: "agent/honest", author: AGENT, body: "Ranex-Task: mul", labels: [] });
    await deliver(app.url, "pull_request", pullRequestPayload({ number: 10, head, base: main, headRef: "agent/honest", body: "Ranex-Task: mul", cloneUrl }));
    const [candidate] = await completed(head, 1);
    expect(candidate).toMatchObject({ conclusion: "success" });

    // Someone else's change lands on main: the CANDIDATE was measured on the older tip.
    const moved = github.commitOnBranch(OWNER, REPO, "main", { "NOTES.md": "main moved on\n" }, "docs: notes");
    const comment = JSON.parse(readFileSync(join(ROOT, "fixtures", "webhooks", "issue_comment.created.json"), "utf8")) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    comment.issue.number = 10;
    comment.issue.pull_request = { url: `${github.url}/api/v3/repos/${OWNER}/${REPO}/pulls/10` };
    comment.comment.body = "/ranex explain";
    comment.installation = { id: 1 };
    await deliver(app.url, "issue_comment", comment);
    const reply = await waitFor("the /ranex explain reply", () => github.comments.find((c) => c.issue === 10), 60_000, app.output);
    expect(reply.body).toContain(`**The base has moved on.** This CANDIDATE was measured on \`main\` at \`${main.slice(0, 7)}\`; \`main\` is now at \`${moved.slice(0, 7)}\``);

    // The owner opts in; the push that does so moves main again, and the open agent PR is judged against it.
    const policy = github.show(OWNER, REPO, moved, ".github/ranex.yml").replace("  timeout: 20\n", "  timeout: 20\n  rejudge_on_base_push: true\n");
    const tip = github.commitOnBranch(OWNER, REPO, "main", { ".github/ranex.yml": policy }, "ci: judge agent PRs again when main moves");
    const push = JSON.parse(readFileSync(join(ROOT, "fixtures", "webhooks", "push.json"), "utf8")) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    push.ref = "refs/heads/main";
    push.before = moved;
    push.after = tip;
    push.created = false;
    push.repository.clone_url = cloneUrl;
    expect((await deliver(app.url, "push", push)).status).toBe(202);
    const runs = await completed(head, 2);
    // A verdict (what it is depends on what the judge makes of the new tip), measured on the new tip.
    expect(["success", "failure"]).toContain(runs[1]!.conclusion);
    expect(runs[1]!.output?.summary).toContain(`| base | \`${tip}\` |`);
    expect(github.problems).toEqual([]);
  }, 300_000);

  it("leaves nothing in progress", async () => {
    await waitFor("every check run completed", () => github.checkRuns.every((r) => r.status === "completed"), 60_000, app.output);
  }, 90_000);
});
