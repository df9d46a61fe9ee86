import type nock from "nock";
import { describe, expect, it } from "vitest";
import { journalDeps } from "../../../src/github/journal-deps.js";
import { ANNOTATIONS_PER_REQUEST, OUTPUT_TEXT_LIMIT } from "../../../src/github/limits.js";
import type { Detail } from "../../../src/kernel/index.js";
import { tempDir } from "../../helpers/git-repo.js";
import { deliveryId, githubApi, INSTALLATION_TOKEN, mockToken, payload, requests, testApp, useStrictNock, type Fixture } from "../../helpers/probot.js";
import { standInJudge, type StandInOptions } from "../stand-in.js";

useStrictNock();

const REPO = "/repos/Codertocat/Hello-World";
const BASE = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e";
const NEW_HEAD = "1111111e57ca3a959ca5aad62de7213c562f8c82";
const POLICY = "version: 1\nagents:\n  authors: [Codertocat]\nrequire: [diff.frozen]\n";

function mockPolicy(scope: nock.Scope, times = 1): void {
  scope.get(`${REPO}/contents/.github%2Franex.yml?ref=${BASE}`).times(times)
    .reply(200, { type: "file", encoding: "base64", content: Buffer.from(POLICY).toString("base64") });
}

async function judgeOnce(options: StandInOptions, patches: number, edit: (p: Fixture) => void = () => {}) {
  const stand = standInJudge(options);
  const dataDir = tempDir();
  const { probot, runner } = await testApp({ judge: stand.judge, dataDir, ...journalDeps({ dataDir }) });
  const api = githubApi();
  api.post(`${REPO}/check-runs`).reply(201, { id: 42 });
  mockPolicy(api);
  mockToken(api);
  api.patch(`${REPO}/check-runs/42`).times(patches).reply(200, {});
  await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened", edit) as never });
  await runner.idle();
  return requests("PATCH", /check-runs\/42$/).map((r) => r.body as Fixture);
}

function frozenFindings(count: number, message = (i: number) => `tests/test_${i}.py was modified, and tests are frozen`): Detail[] {
  return Array.from({ length: count }, (_, i) => ({ message: message(i), path: `tests/test_${i}.py`, line: i + 1, kind: "modified" }));
}

describe("the ranex/judge check run", () => {
  it("fails with one annotation per finding, 50 per request", async () => {
    const patches = await judgeOnce({ outcome: "fail", details: frozenFindings(120) }, 4);
    const [, done, ...more] = patches;
    expect(done).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(done!.output.title).toBe("FAIL (unsafe): diff.frozen: 120 frozen paths changed");
    const batches = [done, ...more].map((p) => p!.output.annotations.length);
    expect(batches).toEqual([ANNOTATIONS_PER_REQUEST, ANNOTATIONS_PER_REQUEST, 20]);
    expect(more.every((p) => p.status === undefined && p.conclusion === undefined)).toBe(true);
    const all = [done, ...more].flatMap((p) => p!.output.annotations as Fixture[]);
    expect(new Set(all.map((a) => a.path)).size).toBe(120);
    expect(all[7]).toEqual({ path: "tests/test_7.py", start_line: 8, end_line: 8, annotation_level: "failure", message: "tests/test_7.py was modified, and tests are frozen", title: "diff.frozen (modified)" });
  });

  it("cuts oversized output with a note instead of failing the post", async () => {
    const patches = await judgeOnce({ outcome: "fail", details: frozenFindings(50, (i) => `finding ${i}: ${"x".repeat(3000)}`) }, 2);
    const output = patches[1]!.output as { summary: string; text: string; title: string };
    // The OpenAPI check in afterEach enforces maxLength too; these say what the reader sees.
    expect(output.text.length).toBeLessThanOrEqual(OUTPUT_TEXT_LIMIT);
    expect(output.text).toMatch(/characters of findings cut to stay within GitHub's limit; the full list is journal entry `[^`]+`/);
    // The envelope signs every finding, so it is too large too: the summary points to the journal.
    expect(output.summary.length).toBeLessThanOrEqual(OUTPUT_TEXT_LIMIT);
    expect(output.summary).toMatch(/The signed envelope is too large to show here: it is journal entry `[^`]+`/);
  });

  it("marks a draft as judged all the same", async () => {
    const patches = await judgeOnce({}, 2, (p) => { p.pull_request.draft = true; });
    expect(patches[1]!.output.summary).toContain("This pull request is a **draft**");
  });

  it("completes failure with the reason when the judge throws, and never shows the token", async () => {
    const basic = Buffer.from(`x-access-token:${INSTALLATION_TOKEN}`).toString("base64");
    const patches = await judgeOnce({ throws: new Error(`git fetch failed: git -c http.extraHeader=AUTHORIZATION: basic ${basic} fetch: exit 128`) }, 2);
    const done = patches[1]!;
    expect(done).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(done.output.title).toBe("error: git fetch failed: git -c http.extraHeader=AUTHORIZATION: basic *** fetch: exit 128");
    expect(JSON.stringify(patches)).not.toContain(basic);
    expect(JSON.stringify(patches)).not.toContain(INSTALLATION_TOKEN);
  });

  it("completes failure when recording the verdict throws", async () => {
    const stand = standInJudge();
    const { probot, runner } = await testApp({ judge: stand.judge, dataDir: tempDir(), record: async () => { throw new Error("the journal is locked"); } });
    const api = githubApi();
    api.post(`${REPO}/check-runs`).reply(201, { id: 42 });
    mockPolicy(api);
    mockToken(api);
    api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened") as never });
    await runner.idle();
    expect(requests("PATCH", /check-runs\/42$/).at(-1)?.body).toMatchObject({ conclusion: "failure", output: { title: "error: the journal is locked" } });
  });

  it("completes failure when reading the base policy fails after the check run exists", async () => {
    const { probot, runner } = await testApp({ judge: standInJudge().judge, dataDir: tempDir() });
    const api = githubApi();
    api.post(`${REPO}/check-runs`).reply(201, { id: 42 });
    api.get(`${REPO}/contents/.github%2Franex.yml?ref=${BASE}`).reply(500, { message: "Server Error" });
    mockToken(api);
    api.patch(`${REPO}/check-runs/42`).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened") as never });
    await runner.idle();
    expect(requests("PATCH", /check-runs\/42$/)[0]?.body).toMatchObject({ status: "completed", conclusion: "failure" });
  });

  it("cancels an older head when a newer one arrives: cancelled 'superseded by <sha7>', never neutral", async () => {
    let release = () => {};
    const held = standInJudge({ gate: new Promise<void>((resolve) => { release = resolve; }) });
    const dataDir = tempDir();
    const { probot, runner } = await testApp({ judge: held.judge, dataDir, ...journalDeps({ dataDir }) });
    const api = githubApi();
    api.post(`${REPO}/check-runs`).reply(201, { id: 42 });
    api.post(`${REPO}/check-runs`).reply(201, { id: 43 });
    mockPolicy(api, 2);
    mockToken(api);
    api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
    api.patch(`${REPO}/check-runs/43`).times(2).reply(200, {});
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.opened") as never });
    while (held.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    await probot.receive({ id: deliveryId(), name: "pull_request", payload: payload("pull_request.synchronize", (p) => { p.pull_request.head.sha = NEW_HEAD; }) as never });
    release();
    await runner.idle();
    expect(requests("PATCH", /check-runs\/42$/).at(-1)?.body).toMatchObject({ conclusion: "cancelled", output: { title: "superseded by 1111111" } });
    expect(requests("PATCH", /check-runs\/43$/).at(-1)?.body).toMatchObject({ conclusion: "success" });
    expect(held.requests.map((r) => r.head)).toEqual(["ec26c3e57ca3a959ca5aad62de7213c562f8c821", NEW_HEAD]);
  });
});
