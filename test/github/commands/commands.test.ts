import { describe, expect, it } from "vitest";
import type nock from "nock";
import { journalDeps, REJUDGE_PREDICATE_TYPE } from "../../../src/github/journal-deps.js";
import { statementOf } from "../../../src/attest/index.js";
import { openJournal, type JournalEntry } from "../../../src/journal/index.js";
import { tempDir } from "../../helpers/git-repo.js";
import { deliveryId, githubApi, mockToken, payload, requests, testApp, useStrictNock, type Fixture } from "../../helpers/probot.js";
import { standInJudge } from "../stand-in.js";

useStrictNock();

const HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
const BASE = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e";
const POLICY = "version: 1\nagents:\n  authors: [Codertocat]\nrequire: [diff.frozen]\n";

/** The pull request as GET /pulls/{n} returns it: the fixture's own PR object. */
function pullOf(owner: string, name: string, number: number, head = HEAD): Fixture {
  const p = payload("pull_request.opened").pull_request as Fixture;
  p.number = number;
  p.head.sha = head;
  p.base.repo.owner.login = owner;
  p.base.repo.name = name;
  return p;
}

function comment(body: string, user: { login: string; type: string } = { login: "maintainer", type: "User" }) {
  return payload("issue_comment.created", (p) => {
    p.comment.body = body;
    p.comment.user.login = user.login;
    p.comment.user.type = user.type;
  });
}

/** The base's policy, read once to learn who runs the agents before a re-judgment is allowed. */
function mockOperators(api: nock.Scope, repo: string, policy = POLICY): void {
  api.get(`${repo}/contents/.github%2Franex.yml?ref=${BASE}`).reply(200, { type: "file", encoding: "base64", content: Buffer.from(policy).toString("base64") });
}

function mockJudgment(api: nock.Scope, repo: string, id = 42): void {
  api.post(`${repo}/check-runs`).reply(201, { id });
  api.get(`${repo}/contents/.github%2Franex.yml?ref=${BASE}`).reply(200, { type: "file", encoding: "base64", content: Buffer.from(POLICY).toString("base64") });
  api.patch(`${repo}/check-runs/${id}`).times(2).reply(200, {});
}

async function entries(dataDir: string): Promise<JournalEntry[]> {
  const journal = await openJournal({ dataDir });
  const out: JournalEntry[] = [];
  for await (const entry of journal.entries()) out.push(entry);
  await journal.close();
  return out;
}

async function setup(token = true) {
  const stand = standInJudge();
  const dataDir = tempDir();
  const app = await testApp({ judge: stand.judge, dataDir, ...journalDeps({ dataDir }) });
  const api = githubApi();
  if (token) mockToken(api);
  return { ...app, stand, dataDir, api };
}

const REPO = "/repos/Codertocat/Hello-World";

describe("/ranex rejudge", () => {
  // `write:senior-reviewer`: a custom repository role that inherits write (issue 14).
  it.each([["write", "write"], ["write", "maintain"], ["admin", "admin"], ["write", "senior-reviewer"]])("is allowed with permission %s (role %s): 👀, a signed rejudge entry, a judgment", async (permission, role) => {
    const { probot, runner, stand, dataDir, api } = await setup();
    api.get(`${REPO}/pulls/1`).reply(200, pullOf("Codertocat", "Hello-World", 1));
    mockOperators(api, REPO);
    api.get(`${REPO}/collaborators/maintainer/permission`).reply(200, { permission, role_name: role, user: null });
    api.post(`${REPO}/issues/comments/492700400/reactions`).reply(201, { id: 1, content: "eyes" });
    mockJudgment(api, REPO);
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment("/ranex rejudge") as never });
    await runner.idle();
    expect(requests("POST", /reactions$/)[0]?.body).toEqual({ content: "eyes" });
    expect(stand.requests.map((r) => r.head)).toEqual([HEAD]);
    const [rejudge, verdict] = await entries(dataDir);
    expect(rejudge?.kind).toBe("rejudge");
    expect(verdict?.kind).toBe("verdict");
    const statement = statementOf(rejudge?.payload);
    expect(statement?.predicateType).toBe(REJUDGE_PREDICATE_TYPE);
    expect(statement?.predicate).toMatchObject({ requestedBy: "maintainer", via: "comment", pullRequest: 1, head: HEAD, repository: "Codertocat/Hello-World" });
  });

  it.each([
    ["the PR author", { login: "Codertocat", type: "User" }, null, /opened this pull request/],
    ["a bot", { login: "helper[bot]", type: "Bot" }, null, /is a bot/],
    ["a reader", { login: "maintainer", type: "User" }, { permission: "read", role_name: "triage" }, /has triage permission; a re-judgment needs write, maintain or admin/],
    ["a stranger", { login: "maintainer", type: "User" }, 404, /is not a collaborator/],
    ["an agent operator, even an admin", { login: "Oscar", type: "User" }, "operator", /@Oscar runs the agents \(`agents.operators` in `.github\/ranex.yml`\)/],
    ["anyone while the base's policy is invalid", { login: "maintainer", type: "User" }, "invalid", /the base's `.github\/ranex.yml` is not valid/],
  ] as const)("is refused for %s with one reply and nothing judged", async (_who, user, permission, reason) => {
    const { probot, runner, stand, dataDir, api } = await setup();
    api.get(`${REPO}/pulls/1`).reply(200, pullOf("Codertocat", "Hello-World", 1));
    if (permission === "operator") mockOperators(api, REPO, POLICY.replace("require:", "  operators: [\"@oscar\"]\nrequire:"));
    else if (permission === "invalid") mockOperators(api, REPO, "version: 1\nagents:\n  operators: [\"@org/team\"]\n");
    else if (permission !== null) mockOperators(api, REPO);
    if (permission === 404) api.get(`${REPO}/collaborators/${user.login}/permission`).reply(404, { message: "Not Found" });
    else if (typeof permission === "object" && permission !== null) api.get(`${REPO}/collaborators/${user.login}/permission`).reply(200, { ...permission, user: null });
    api.post(`${REPO}/issues/1/comments`).reply(201, { id: 9 });
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment("/ranex rejudge", user) as never });
    await runner.idle();
    const replies = requests("POST", /issues\/1\/comments$/);
    expect(replies).toHaveLength(1);
    expect((replies[0]!.body as Fixture).body).toMatch(/^Not re-judged\. /);
    expect((replies[0]!.body as Fixture).body).toMatch(reason);
    expect(stand.requests).toHaveLength(0);
    expect(requests("POST", /check-runs$/)).toHaveLength(0);
    expect(await entries(dataDir)).toEqual([]);
  });
});

describe("other /ranex commands", () => {
  it("explains the latest verdict for the head in plain words", async () => {
    const { probot, runner, api } = await setup();
    api.get(`${REPO}/pulls/1`).reply(200, pullOf("Codertocat", "Hello-World", 1));
    api.get(`${REPO}/commits/${HEAD}/check-runs`).query({ check_name: "ranex/judge", filter: "latest" })
      .reply(200, { total_count: 1, check_runs: [{ id: 5, status: "completed", conclusion: "failure", output: { title: "FAIL (unsafe): diff.frozen: tests/test_calc.py was modified" } }] });
    api.post(`${REPO}/issues/1/comments`).reply(201, { id: 9 });
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment("/ranex explain") as never });
    await runner.idle();
    const text = (requests("POST", /comments$/)[0]?.body as Fixture).body as string;
    expect(text).toContain("**FAIL** for `ec26c3e`: FAIL (unsafe): diff.frozen: tests/test_calc.py was modified");
    expect(text).toContain("re-running the same commit gives the same answer");
  });

  it("answers an unknown command with the list of commands", async () => {
    const { probot, runner, api } = await setup();
    api.post(`${REPO}/issues/1/comments`).reply(201, { id: 9 });
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment("/ranex approve please") as never });
    await runner.idle();
    const text = (requests("POST", /comments$/)[0]?.body as Fixture).body as string;
    expect(text).toMatch(/^`\/ranex approve` is not a command\./);
    expect(text).toContain("`/ranex rejudge`");
    expect(text).toContain("`/ranex explain`");
  });

  it("ignores comments that are not /ranex commands, and comments on issues", async () => {
    // No token mock: any call to GitHub at all would be unmatched and fail the test.
    const { probot, runner } = await setup(false);
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: comment("looks good, /ranex later") as never });
    await probot.receive({ id: deliveryId(), name: "issue_comment", payload: payload("issue_comment.created", (p) => { delete p.issue.pull_request; }) as never });
    await runner.idle();
    expect(requests("POST", /./)).toEqual([]);
  });
});

describe("check_run.rerequested", () => {
  const HW = "/repos/github/hello-world";
  const OLD = "d6fde92930d4715a2b49857d24b940956b26d2d3";

  it("re-judges the current head for a maintainer and marks the outdated head", async () => {
    const { probot, runner, stand, dataDir, api } = await setup();
    api.get(`${HW}/pulls/2`).reply(200, pullOf("github", "hello-world", 2));
    mockOperators(api, HW);
    api.get(`${HW}/collaborators/octocat/permission`).reply(200, { permission: "admin", role_name: "admin", user: null });
    mockJudgment(api, HW);
    api.post(`${HW}/check-runs`).reply(201, { id: 50 });
    await probot.receive({ id: deliveryId(), name: "check_run", payload: payload("check_run.rerequested") as never });
    await runner.idle();
    expect(stand.requests.map((r) => r.head)).toEqual([HEAD]);
    expect(requests("POST", /check-runs$/).map((r) => (r.body as Fixture).head_sha)).toEqual([HEAD, OLD]);
    // The outdated head's answer is known at once: one write, created already cancelled (issue 21).
    expect(requests("POST", /check-runs$/)[1]?.body).toMatchObject({ status: "completed", conclusion: "cancelled", output: { title: "outdated head: judged ec26c3e instead" } });
    expect(requests("PATCH", /check-runs\/50$/)).toEqual([]);
    const [rejudge] = await entries(dataDir);
    expect(statementOf(rejudge?.payload)?.predicate).toMatchObject({ requestedBy: "octocat", via: "check_run" });
  });

  it("refuses the PR author with a reply on the pull request", async () => {
    const { probot, runner, stand, api } = await setup();
    api.get(`${HW}/pulls/2`).reply(200, pullOf("github", "hello-world", 2));
    api.post(`${HW}/issues/2/comments`).reply(201, { id: 9 });
    await probot.receive({ id: deliveryId(), name: "check_run", payload: payload("check_run.rerequested", (p) => { p.sender.login = "Codertocat"; }) as never });
    await runner.idle();
    expect((requests("POST", /comments$/)[0]?.body as Fixture).body).toMatch(/opened this pull request/);
    expect(stand.requests).toHaveLength(0);
  });
});
