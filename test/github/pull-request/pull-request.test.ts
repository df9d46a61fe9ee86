import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type nock from "nock";
import { describe, expect, it } from "vitest";
import { journalDeps } from "../../../src/github/journal-deps.js";
import { openJournal } from "../../../src/journal/index.js";
import { pageSecret, verdictToken } from "../../../src/web/page-token.js";
import { tempDir } from "../../helpers/git-repo.js";
import { deliveryId, githubApi, INSTALLATION_TOKEN, mockToken, payload, requests, testApp, useStrictNock } from "../../helpers/probot.js";
import { standInJudge } from "../stand-in.js";

useStrictNock();

const REPO = "/repos/Codertocat/Hello-World";
const HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
const BASE = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e";
const AGENT_POLICY = "version: 1\nagents:\n  authors: [\"agent-bot[bot]\"]\n  labels: [agent]\n  branches: [\"codex/**\"]\nrequire: [diff.frozen]\n";

function mockPolicy(scope: nock.Scope, text: string | null, base = BASE): nock.Scope {
  const path = `${REPO}/contents/.github%2Franex.yml?ref=${base}`;
  if (text === null) return scope.get(path).reply(404, { message: "Not Found" });
  return scope.get(path).reply(200, { type: "file", encoding: "base64", name: "ranex.yml", path: ".github/ranex.yml", content: Buffer.from(text).toString("base64"), sha: "1".repeat(40), size: text.length });
}

/** No other open pull request has this head: asked before any neutral (issue 14). */
function mockNoOtherPulls(scope: nock.Scope, head = HEAD): nock.Scope {
  return scope.get(`${REPO}/commits/${head}/pulls`).query({ per_page: 100 }).reply(200, []);
}

function mockCreate(scope: nock.Scope, id = 42, base = REPO): nock.Scope {
  return scope.post(`${base}/check-runs`).reply(201, { id });
}

function agentOpened(edit: (p: Record<string, any>) => void = () => {}) { // eslint-disable-line @typescript-eslint/no-explicit-any
  return payload("pull_request.opened", (p) => {
    p.pull_request.user.login = "agent-bot[bot]";
    p.pull_request.body = "Adds mul.\n\nRanex-Task: mul\n";
    edit(p);
  });
}

describe("pull_request webhooks", () => {
  it("completes a person's PR neutral, 'not an agent PR', without judging or fetching", async () => {
    const stand = standInJudge();
    const { probot, runner } = await testApp({ judge: stand.judge, dataDir: tempDir() });
    const api = githubApi();
    mockToken(api);
    mockCreate(api);
    mockPolicy(api, AGENT_POLICY);
    mockNoOtherPulls(api);
    api.patch(`${REPO}/check-runs/42`).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened") as never });
    await runner.idle();
    expect(stand.requests).toHaveLength(0);
    expect(requests("POST", /check-runs$/)[0]?.body).toEqual({ name: "ranex/judge", head_sha: HEAD, status: "queued" });
    const done = requests("PATCH", /check-runs\/42$/)[0]?.body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(done).toMatchObject({ status: "completed", conclusion: "neutral", output: { title: "not an agent PR" } });
    expect(done.output.summary).toContain("`Codertocat`");
  });

  it("completes neutral when the base has no policy", async () => {
    const stand = standInJudge();
    const { probot, runner } = await testApp({ judge: stand.judge, dataDir: tempDir() });
    const api = githubApi();
    mockToken(api);
    mockCreate(api);
    mockPolicy(api, null);
    mockNoOtherPulls(api);
    api.patch(`${REPO}/check-runs/42`).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentOpened() as never });
    await runner.idle();
    expect(stand.requests).toHaveLength(0);
    expect(requests("PATCH", /check-runs\/42$/)[0]?.body).toMatchObject({ conclusion: "neutral", output: { title: "not an agent PR" } });
  });

  it.each([
    ["author", (p: Record<string, any>) => { p.pull_request.user.login = "agent-bot[bot]"; }], // eslint-disable-line @typescript-eslint/no-explicit-any
    ["label", (p: Record<string, any>) => { p.pull_request.labels.push({ name: "agent" }); }], // eslint-disable-line @typescript-eslint/no-explicit-any
    ["branch", (p: Record<string, any>) => { p.pull_request.head.ref = "codex/mul"; }], // eslint-disable-line @typescript-eslint/no-explicit-any
  ])("judges an agent PR marked by %s: queued, in_progress, completed and journalled", async (_rule, edit) => {
    const stand = standInJudge();
    const dataDir = tempDir();
    const { probot, runner } = await testApp({ judge: stand.judge, dataDir, publicUrl: "https://gate.example.com/", ...journalDeps({ dataDir }) });
    const api = githubApi();
    mockCreate(api);
    mockPolicy(api, AGENT_POLICY);
    mockToken(api);
    api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened", (p) => { edit(p); p.pull_request.body = "Ranex-Task: mul"; }) as never });
    await runner.idle();

    expect(stand.requests).toHaveLength(1);
    const request = stand.requests[0]!;
    expect(request).toMatchObject({ source: "https://github.com/Codertocat/Hello-World.git", base: BASE, head: HEAD, task: "mul", repository: "Codertocat/Hello-World", refs: ["refs/pull/2/head"], dataDir });
    const basic = Buffer.from(`x-access-token:${INSTALLATION_TOKEN}`).toString("base64");
    expect(request.gitConfig).toEqual([`http.extraHeader=AUTHORIZATION: basic ${basic}`]);

    const [progress, done] = requests("PATCH", /check-runs\/42$/).map((r) => r.body as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(progress).toEqual({ status: "in_progress", started_at: "2026-02-03T04:05:06Z" });
    expect(done).toMatchObject({ status: "completed", conclusion: "success", completed_at: "2026-02-03T04:05:06Z" });
    const journal = await openJournal({ dataDir });
    const entry = await journal.get(done!.external_id);
    await journal.close();
    expect(entry?.kind).toBe("verdict");
    // The page link carries the verdict's own token (an HMAC under the data dir's page secret): without it, a 404.
    expect(done!.details_url).toBe(`https://gate.example.com/ranex/verdicts/${done!.external_id}?token=${verdictToken(pageSecret(dataDir), done!.external_id)}`);
    expect(done!.output.title).toMatch(/^CANDIDATE/);
    expect(done!.output.summary).toContain(JSON.stringify(entry?.payload, null, 2).split("\n")[1]);
    // The token went to the judge's fetch only: nothing under the data dir holds it.
    expect(filesUnder(dataDir).filter((f) => readFileSync(f).includes(INSTALLATION_TOKEN) || readFileSync(f).includes(basic))).toEqual([]);
  });

  it("judges a redelivered webhook once", async () => {
    const stand = standInJudge();
    const dataDir = tempDir();
    const { probot, runner } = await testApp({ judge: stand.judge, dataDir, ...journalDeps({ dataDir }) });
    const api = githubApi();
    mockCreate(api);
    mockPolicy(api, AGENT_POLICY);
    mockToken(api);
    api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
    const id = deliveryId();
    await probot.receive({ id, name: "pull_request", payload: agentOpened() as never });
    await probot.receive({ id, name: "pull_request", payload: agentOpened() as never });
    await runner.idle();
    expect(stand.requests).toHaveLength(1);
    expect(requests("POST", /check-runs$/)).toHaveLength(1);
  });

  it("ignores an edit that does not change the Ranex-Task line, and judges one that does", async () => {
    const stand = standInJudge();
    const dataDir = tempDir();
    const { probot, runner } = await testApp({ judge: stand.judge, dataDir, ...journalDeps({ dataDir }) });
    const api = githubApi();
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.edited", (p) => { p.changes.body.from = p.pull_request.body; }) as never });
    expect(stand.requests).toHaveLength(0);
    mockCreate(api);
    mockPolicy(api, AGENT_POLICY);
    mockToken(api);
    api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.edited", (p) => { p.pull_request.labels.push({ name: "agent" }); }) as never });
    await runner.idle();
    expect(stand.requests.map((r) => r.task)).toEqual(["mul"]);
  });

  it("talks to GitHub Enterprise Server at https://HOST/api/v3", async () => {
    const stand = standInJudge();
    const dataDir = tempDir();
    const { probot, runner } = await testApp({ judge: stand.judge, dataDir, ...journalDeps({ dataDir }) }, "https://ghe.example.com/api/v3");
    const api = githubApi("https://ghe.example.com", "ghes-3.19");
    api.post(`/api/v3${REPO}/check-runs`).reply(201, { id: 7 });
    api.get(`/api/v3${REPO}/contents/.github%2Franex.yml?ref=${BASE}`).reply(200, { type: "file", encoding: "base64", content: Buffer.from(AGENT_POLICY).toString("base64") });
    api.post("/api/v3/app/installations/1/access_tokens").reply(201, { token: INSTALLATION_TOKEN, expires_at: "2099-01-01T00:00:00Z" });
    api.patch(`/api/v3${REPO}/check-runs/7`).times(2).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: agentOpened((p) => { p.repository.clone_url = "https://ghe.example.com/Codertocat/Hello-World.git"; }) as never });
    await runner.idle();
    expect(stand.requests[0]?.source).toBe("https://ghe.example.com/Codertocat/Hello-World.git");
    expect(requests("PATCH", /check-runs\/7$/).at(-1)?.body).toMatchObject({ conclusion: "success" });
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}
