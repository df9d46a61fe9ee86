import type nock from "nock";
import { mergeAuthority } from "../../../src/github/approval/deps.js";
import { journalDeps } from "../../../src/github/journal-deps.js";
import { tempDir } from "../../helpers/git-repo.js";
import { githubApi, mockToken, payload, sent, testApp, type Fixture } from "../../helpers/probot.js";
import { standInJudge, type StandInOptions } from "../stand-in.js";

// Shared by the judged-PR lifecycle tests: the app with a real journal, GitHub's answers for what a
// judgment asks, and the real payloads of Codertocat/Hello-World edited only where a test needs it.

export const REPO = "/repos/Codertocat/Hello-World";
export const FULL = "Codertocat/Hello-World";
export const HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
export const NEW_HEAD = "1111111e57ca3a959ca5aad62de7213c562f8c82";
export const BASE = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e";
/** The tip of a branch the agent pushed, with no `.github/ranex.yml`. */
export const LAX = "0d1c2b3a4e5f60718293a4b5c6d7e8f901234567";
export const AGENT = "agent-bot[bot]";
export const POLICY = `version: 1\nagents:\n  authors: ["${AGENT}"]\n  labels: [agent]\nrequire: [diff.scope]\n`;

export async function lifecycleApp(judge: StandInOptions = {}, withAuthority = false) {
  const dataDir = tempDir();
  const stand = standInJudge(judge);
  const app = await testApp({
    judge: stand.judge, dataDir, ...journalDeps({ dataDir }),
    ...(withAuthority ? { mergeAuthority: mergeAuthority({ dataDir }) } : {}),
  });
  const api = githubApi();
  mockToken(api);
  return { ...app, stand, dataDir, api };
}

export function mockPolicy(api: nock.Scope, base = BASE, text: string | null = POLICY, times = 1): void {
  const path = `${REPO}/contents/.github%2Franex.yml?ref=${base}`;
  if (text === null) {
    api.get(path).times(times).reply(404, { message: "Not Found" });
    return;
  }
  api.get(path).times(times).reply(200, { type: "file", encoding: "base64", name: "ranex.yml", path: ".github/ranex.yml", content: Buffer.from(text).toString("base64"), sha: "1".repeat(40), size: text.length });
}

/** `GET /commits/{sha}/pulls`: the open pull requests GitHub associates with the commit. */
export function mockPullsOfCommit(api: nock.Scope, head: string, pulls: Fixture[] = []): void {
  api.get(`${REPO}/commits/${head}/pulls`).query({ per_page: 100 }).reply(200, pulls);
}

/** A check run created `queued` and completed, with `patches` updates (2 for a verdict). */
export function mockCheck(api: nock.Scope, id: number, patches = 2): void {
  api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id });
  api.patch(`${REPO}/check-runs/${id}`).times(patches).reply(200, {});
}

/** The pull request object as the REST API returns it (the payload's own), with a number, head and base. */
export function pullObject(number: number, edit: (p: Fixture) => void = () => {}): Fixture {
  const p = payload("pull_request.opened").pull_request as Fixture;
  p.number = number;
  edit(p);
  return p;
}

export function agentEvent(name: string, edit: (p: Fixture) => void = () => {}): Fixture {
  return payload(name, (p) => {
    p.pull_request.user.login = AGENT;
    p.pull_request.body = "Adds mul.\n\nRanex-Task: mul\n";
    edit(p);
  });
}

/** Every conclusion the app sent to GitHub in this test, for any check run. */
export function conclusions(): string[] {
  return sent.map((r) => (r.body as Fixture | undefined)?.conclusion as string | undefined).filter((c): c is string => c !== undefined);
}

/** The completing body sent for check run `id`. */
export function completion(id: number): Fixture | undefined {
  return sent.filter((r) => r.method === "PATCH" && r.path.endsWith(`/check-runs/${id}`)).map((r) => r.body as Fixture).find((b) => b.status === "completed");
}

/** Classic protection that requires both checks: no decoration notice, one read per branch. */
export function mockProtected(api: nock.Scope, branch = "master"): void {
  api.get(`${REPO}/branches/${branch}/protection/required_status_checks`).reply(200, {
    url: "u", strict: false, contexts: ["ranex/judge", "ranex/approval"], contexts_url: "u",
    checks: [{ context: "ranex/judge", app_id: 123 }, { context: "ranex/approval", app_id: 123 }],
  });
}
