import type nock from "nock";
import { mergeAuthority } from "../../../src/github/approval/deps.js";
import { journalDeps } from "../../../src/github/journal-deps.js";
import { openJournal, type JournalEntry } from "../../../src/journal/index.js";
import { tempDir } from "../../helpers/git-repo.js";
import { githubApi, mockToken, payload, testApp, type Fixture } from "../../helpers/probot.js";
import { standInJudge, type StandInOptions } from "../stand-in.js";

// Shared by the merge-authority tests: the app with a real journal and real merge authority, and
// GitHub's answers (bodies shaped as the REST API returns them) for the requests it makes.

export const REPO = "/repos/Codertocat/Hello-World";
export const HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
export const OLD_HEAD = "0d1c2b3a4e5f60718293a4b5c6d7e8f901234567";
export const BASE = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e";
export const AGENT = "agent-bot[bot]";

export function policyText(extra = ""): string {
  return `version: 1\nagents:\n  authors: ["${AGENT}"]\n  operators: [carol]\nrequire: [diff.frozen]\n${extra}`;
}

export async function mergeApp(judge: StandInOptions = {}) {
  const dataDir = tempDir();
  const stand = standInJudge(judge);
  const journal = journalDeps({ dataDir });
  const authority = mergeAuthority({ dataDir });
  const app = await testApp({ judge: stand.judge, dataDir, ...journal, mergeAuthority: authority });
  const api = githubApi();
  // Probot keeps the installation token for the app's life: one exchange per app.
  mockToken(api);
  return { ...app, stand, dataDir, journal, authority, api };
}

export function mockPolicy(api: nock.Scope, text = policyText(), base = BASE): void {
  api.get(`${REPO}/contents/.github%2Franex.yml?ref=${base}`)
    .reply(200, { type: "file", encoding: "base64", name: "ranex.yml", path: ".github/ranex.yml", content: Buffer.from(text).toString("base64"), sha: "1".repeat(40), size: text.length });
}

/** Classic protection that requires both checks: no decoration notice. */
export function mockProtected(api: nock.Scope, branch = "master"): void {
  api.get(`${REPO}/branches/${branch}/protection/required_status_checks`).reply(200, {
    url: "u", strict: false, contexts: ["ranex/judge", "ranex/approval"], contexts_url: "u",
    checks: [{ context: "ranex/judge", app_id: 123 }, { context: "ranex/approval", app_id: 123 }],
  });
}

export interface Person { login: string | null; name: string; email: string }
export const agentId: Person = { login: AGENT, name: "agent-bot", email: "99+agent-bot[bot]@users.noreply.github.com" };
const webFlow: Person = { login: "web-flow", name: "GitHub", email: "noreply@github.com" };

export function commitOf(sha: string, author: Person = agentId, message = "Add mul", committer: Person = webFlow, parents: string[] = []): Fixture {
  const git = (p: Person) => ({ name: p.name, email: p.email, date: "2026-02-01T00:00:00Z" });
  const account = (p: Person) => (p.login === null ? null : { login: p.login, id: 1, type: p.login.endsWith("[bot]") ? "Bot" : "User" });
  return { sha, commit: { author: git(author), committer: git(committer), message }, author: account(author), committer: account(committer), parents: parents.map((p) => ({ sha: p, url: "u" })) };
}

export function reviewOf(id: number, login: string, state = "APPROVED", commitId = HEAD, type = "User"): Fixture {
  return { id, user: { login, id: id + 1000, type }, state, commit_id: commitId, body: "", submitted_at: "2026-02-02T00:00:00Z" };
}

export interface Facts {
  commits?: Fixture[];
  reviews?: Fixture[];
  /** login -> role (or `permission:role_name`); null answers 404 (not a collaborator). */
  roles?: Record<string, string | null>;
  /** `org/slug:login` -> active member. */
  teams?: Record<string, boolean>;
  profiles?: Record<string, { name: string | null; email: string | null }>;
  /** The pull request as `pulls/{n}` answers now; by default PR 2 into master at BASE, head HEAD. */
  pull?: { head?: string; base?: string; baseRef?: string; commits?: number; author?: string };
  /** Open pull requests `commits/{head}/pulls` lists besides this one. */
  sharedWith?: number[];
  /** The PR's timeline events. */
  timeline?: Fixture[];
  /** `basehead` -> changed file names, or the status (compare API); null answers 404. */
  compares?: Record<string, string[] | { status: string } | null>;
}

export function pullOf(number: number, p: NonNullable<Facts["pull"]> = {}, commits = 1): Fixture {
  return {
    number, state: "open", user: { login: p.author ?? AGENT, id: 1, type: "Bot" }, commits: p.commits ?? commits,
    head: { sha: p.head ?? HEAD, ref: "agent/fix" }, base: { sha: p.base ?? BASE, ref: p.baseRef ?? "master" },
  };
}

/** The facts the approval decision reads, each mocked once. */
export function mockFacts(api: nock.Scope, facts: Facts, number = 2): void {
  const commits = facts.commits ?? [commitOf("a".repeat(40))];
  const pull = pullOf(number, facts.pull, commits.length);
  api.get(`${REPO}/pulls/${number}`).reply(200, pull);
  const others = (facts.sharedWith ?? []).map((n) => pullOf(n, { head: pull.head.sha }));
  api.get(`${REPO}/commits/${pull.head.sha}/pulls`).query({ per_page: 100 }).reply(200, [pull, ...others]);
  api.get(`${REPO}/issues/${number}/timeline`).query({ per_page: 100 }).reply(200, facts.timeline ?? []);
  for (const [basehead, files] of Object.entries(facts.compares ?? {})) {
    const path = `${REPO}/compare/${basehead}`;
    if (files === null) api.get(path).query({ per_page: 1 }).reply(404, { message: "Not Found" });
    else if (Array.isArray(files)) api.get(path).query({ per_page: 1 }).reply(200, { status: "ahead", files: files.map((filename) => ({ filename, status: "modified" })) });
    else api.get(path).query({ per_page: 1 }).reply(200, { status: files.status, files: [] });
  }
  api.get(`${REPO}/pulls/${number}/commits`).query({ per_page: 100 }).reply(200, commits);
  api.get(`${REPO}/pulls/${number}/reviews`).query({ per_page: 100 }).reply(200, facts.reviews ?? []);
  for (const [login, role] of Object.entries(facts.roles ?? {})) {
    const path = `${REPO}/collaborators/${encodeURIComponent(login)}/permission`;
    if (role === null) api.get(path).reply(404, { message: "Not Found" });
    // As GitHub answers: `permission` folds maintain into write and triage into read; a custom
    // role is given as `permission:role_name` (`write:senior-reviewer`).
    else if (role.includes(":")) api.get(path).reply(200, { permission: role.split(":")[0], role_name: role.split(":")[1], user: null });
    else api.get(path).reply(200, { permission: role === "maintain" ? "write" : role === "triage" ? "read" : role, role_name: role, user: null });
  }
  for (const [key, active] of Object.entries(facts.teams ?? {})) {
    const [team = "", login = ""] = key.split(":");
    const [org, slug] = team.split("/");
    const path = `/orgs/${org}/teams/${slug}/memberships/${login}`;
    if (active) api.get(path).reply(200, { url: "u", role: "member", state: "active" });
    else api.get(path).reply(404, { message: "Not Found" });
  }
  for (const [login, profile] of Object.entries(facts.profiles ?? {})) {
    api.get(`/users/${login}`).reply(200, { login, id: 5, type: "User", ...profile });
  }
}

/** The check runs GitHub lists on the head: ranex/judge with its journal entry, maybe ranex/approval. */
export function mockCheckRuns(api: nock.Scope, judge: { status?: string; conclusion?: string | null; externalId?: string }, approval?: Fixture, head = HEAD): void {
  const runs: Fixture[] = [{
    id: 42, name: "ranex/judge", head_sha: head, status: judge.status ?? "completed", conclusion: judge.conclusion === undefined ? "success" : judge.conclusion,
    external_id: judge.externalId ?? "", output: { title: "CANDIDATE", summary: "s", text: null, annotations_count: 0, annotations_url: "u" },
  }];
  if (approval !== undefined) runs.push({ id: 77, name: "ranex/approval", head_sha: head, status: "completed", external_id: "", ...approval });
  api.get(`${REPO}/commits/${head}/check-runs`).query({ filter: "latest", per_page: 100 }).reply(200, { total_count: runs.length, check_runs: runs });
}

/** A review event for PR 2 of Codertocat/Hello-World, from the real payload. */
export function reviewEvent(action: "submitted" | "edited" | "dismissed", login: string, edit: (p: Fixture) => void = () => {}): Fixture {
  return payload(`pull_request_review.${action}`, (p) => {
    p.review.user.login = login;
    p.pull_request.user.login = AGENT;
    edit(p);
  });
}

export async function journalEntries(dataDir: string): Promise<JournalEntry[]> {
  const journal = await openJournal({ dataDir });
  const out: JournalEntry[] = [];
  for await (const entry of journal.entries()) out.push(entry);
  await journal.close();
  return out;
}

export const NEW_HEAD = "1111111e57ca3a959ca5aad62de7213c562f8c82";

/** One judgment's requests to GitHub, up to the completed ranex/judge check. */
export function mockJudgment(api: nock.Scope, _head = HEAD, policy = policyText()): void {
  api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/judge").reply(201, { id: 42 });
  mockPolicy(api, policy);
  api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
  // The base branch's name comes from the payload (pull_request.base.ref): no GET of the pull request.
}

export function mockApprovalCheck(api: nock.Scope): void {
  api.post(`${REPO}/check-runs`, (b: Fixture) => b.name === "ranex/approval").reply(201, { id: 77 });
}

export function opened(head = HEAD, name = "pull_request.opened", edit: (p: Fixture) => void = () => {}): Fixture {
  return payload(name, (p) => {
    p.pull_request.user.login = AGENT;
    p.pull_request.head.sha = head;
    edit(p);
  });
}
