import type nock from "nock";
import { mergeAuthority } from "../../../src/github/approval/deps.js";
import { journalDeps } from "../../../src/github/journal-deps.js";
import { tempDir } from "../../helpers/git-repo.js";
import { deliveryId, githubApi, mockToken, payload, requests, testApp, type Fixture } from "../../helpers/probot.js";
import { commitOf, reviewOf } from "../approval/helpers.js";
import { standInJudge, type StandInOptions } from "../stand-in.js";

// Shared by the merge queue tests: the app with a real journal and merge authority, the recorded
// merge_group payload's group, and GitHub's answers (shaped as the REST API returns them) for what
// judging and approving a group asks.

// The recorded payload's group: octo-org/octo-repo, queue branch pr-104 on main.
export const REPO = "/repos/octo-org/octo-repo";
export const GROUP_HEAD = "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d";
export const GROUP_BASE = "380387fbc80638b734a49e1be1c4dfec1c01b33c";
export const QUEUE_103 = "3333333db159f6b6c47a24e778fb9ef40cf6b1c7";
export const LATER = "5555555db159f6b6c47a24e778fb9ef40cf6b1c7";
export const HEAD_103 = "a103a103a103a103a103a103a103a103a103a103";
export const HEAD_104 = "a104a104a104a104a104a104a104a104a104a104";
export const AGENT = "agent-bot[bot]";
export const POLICY = `version: 1\nagents:\n  authors: ["${AGENT}"]\n  labels: [agent]\nrequire: [diff.frozen]\n`;

export async function queueApp(judge: StandInOptions = {}, token = true) {
  const dataDir = tempDir();
  const stand = standInJudge(judge);
  const journal = journalDeps({ dataDir });
  const app = await testApp({ judge: stand.judge, dataDir, ...journal, mergeAuthority: mergeAuthority({ dataDir }) });
  const api = githubApi();
  // Probot keeps the installation token for the app's life: one exchange per app, when it asks at all.
  if (token) mockToken(api);
  return { ...app, stand, dataDir, journal, api };
}

export type QueueApp = Awaited<ReturnType<typeof queueApp>>;

export function mockPolicy(api: nock.Scope, text: string | null = POLICY, ref = GROUP_BASE): void {
  const path = `${REPO}/contents/.github%2Franex.yml?ref=${ref}`;
  if (text === null) api.get(path).reply(404, { message: "Not Found" });
  else api.get(path).reply(200, { type: "file", encoding: "base64", name: "ranex.yml", path: ".github/ranex.yml", content: Buffer.from(text).toString("base64"), sha: "1".repeat(40), size: text.length });
}

/** GitHub's queue for main: pr-103 ahead of pr-104 (this group's commit), pr-105 behind it. */
export function mockGroup(api: nock.Scope, pulls: Fixture[]): void {
  api.get(`${REPO}/compare/${GROUP_BASE}...${GROUP_HEAD}`).query({ per_page: 100, page: 1 }).reply(200, {
    status: "ahead", ahead_by: 2, behind_by: 0, total_commits: 2, files: [],
    commits: [queueCommit(QUEUE_103, "Merge pull request #103 from octo-org/agent/103"), queueCommit(GROUP_HEAD, "Merge pull request #104 from octo-org/agent/104")],
  });
  api.get(`${REPO}/git/matching-refs/heads%2Fgh-readonly-queue%2Fmain%2F`).query({ per_page: 100 }).reply(200, [
    { ref: `refs/heads/gh-readonly-queue/main/pr-103-${GROUP_BASE}`, object: { sha: QUEUE_103, type: "commit" } },
    { ref: `refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64`, object: { sha: GROUP_HEAD, type: "commit" } },
    { ref: `refs/heads/gh-readonly-queue/main/pr-105-${GROUP_HEAD}`, object: { sha: LATER, type: "commit" } },
  ]);
  for (const pull of pulls) api.get(`${REPO}/pulls/${pull.number}`).reply(200, pull);
}

export function queueCommit(sha: string, message: string, parents = 2): Fixture {
  return { sha, commit: { message }, parents: Array.from({ length: parents }, (_, i) => ({ sha: `${i}`.repeat(40) })) };
}

export function pullOf(number: number, head: string, options: { author?: string; labels?: string[]; task?: string } = {}): Fixture {
  return {
    number, state: "open", commits: 1, body: options.task === undefined ? "Does a thing." : `Does a thing.\n\nRanex-Task: ${options.task}\n`,
    user: { login: options.author ?? AGENT, id: 9, type: "Bot" }, labels: (options.labels ?? []).map((name) => ({ name })),
    head: { sha: head, ref: `agent/${number}` }, base: { sha: GROUP_BASE, ref: "main" },
  };
}

/** A CANDIDATE of the pull request's own head in the journal, and its ranex/judge check run pointing at it. */
export async function judgedPull(app: QueueApp, number: number, head: string, base = GROUP_BASE): Promise<string> {
  const judgment = await standInJudge().judge({ source: "x", base, head, task: null, dataDir: app.dataDir, repository: "octo-org/octo-repo" }, new AbortController().signal);
  const recorded = await app.journal.record(judgment, { repository: "octo-org/octo-repo", ref: `refs/pull/${number}/head`, time: "2026-02-01T00:00:00Z" });
  app.api.get(`${REPO}/commits/${head}/check-runs`).query({ check_name: "ranex/judge", filter: "latest", per_page: 100 }).reply(200, {
    total_count: 1, check_runs: [{ id: 900 + number, name: "ranex/judge", head_sha: head, status: "completed", conclusion: "success", external_id: recorded.journalId, app: { id: 123 } }],
  });
  return recorded.journalId;
}

/**
 * What deciding one pull request's approval reads (../approval/approval.ts `decide`): the pull
 * request as it is now and the open pull requests sharing its head (the verdict is bound to this
 * pull request and its base), then its commits, reviews, force-pushes and each approver's role.
 */
export function mockApprovalFacts(api: nock.Scope, pull: Fixture, approvers: string[]): void {
  const { number } = pull;
  const head = pull.head.sha;
  api.get(`${REPO}/pulls/${number}`).reply(200, pull);
  api.get(`${REPO}/commits/${head}/pulls`).query({ per_page: 100 }).reply(200, [pull]);
  api.get(`${REPO}/issues/${number}/timeline`).query({ per_page: 100 }).reply(200, []);
  api.get(`${REPO}/pulls/${number}/commits`).query({ per_page: 100 }).reply(200, [commitOf(head)]);
  api.get(`${REPO}/pulls/${number}/reviews`).query({ per_page: 100 }).reply(200, approvers.map((login, i) => reviewOf(number * 10 + i, login, "APPROVED", head)));
  for (const login of approvers) api.get(`${REPO}/collaborators/${login}/permission`).reply(200, { permission: "write", role_name: "write", user: null });
}

export function checksRequested(): Fixture {
  return payload("merge_group.checks_requested");
}

export function posted(name: string): Fixture[] {
  return requests("POST", /check-runs$/).map((r) => r.body as Fixture).filter((b) => b.name === name);
}

export function judgePatches(): Fixture[] {
  return requests("PATCH", /check-runs\/42$/).map((r) => r.body as Fixture);
}

/** The recorded group (#103 by the agent, task add; #104 labelled agent, task mul), judged with these approvers of each head. */
export async function twoAgents(approvers103: string[], approvers104: string[]) {
  const app = await queueApp();
  app.api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
  mockPolicy(app.api);
  const pull103 = pullOf(103, HEAD_103, { task: "add" });
  const pull104 = pullOf(104, HEAD_104, { author: "someone", labels: ["agent"], task: "mul" });
  mockGroup(app.api, [pull103, pull104]);
  app.api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
  await judgedPull(app, 103, HEAD_103);
  await judgedPull(app, 104, HEAD_104);
  mockApprovalFacts(app.api, pull103, approvers103);
  mockApprovalFacts(app.api, pull104, approvers104);
  app.api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
  await app.probot.receive({ id: deliveryId(), name: "merge_group", payload: checksRequested() as never });
  await app.runner.idle();
  return app;
}
