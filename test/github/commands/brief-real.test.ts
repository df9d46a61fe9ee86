import { beforeAll, describe, expect, it } from "vitest";
import { dataDirKey, publicKeyPem, verifyEnvelope } from "../../../src/attest/index.js";
import type { AppDeps } from "../../../src/github/deps.js";
import { journalDeps } from "../../../src/github/journal-deps.js";
import { judge } from "../../../src/judge/judge.js";
import { openJournal } from "../../../src/journal/index.js";
import { readPageFacts, withPageFacts } from "../../../src/web/index.js";
import { verdictEntry } from "../../../src/web/journal-view.js";
import { renderVerdictPage } from "../../../src/web/render-verdict.js";
import { agentPullClone } from "../../helpers/fixtures.js";
import { git, tempDir } from "../../helpers/git-repo.js";
import { deliveryId, githubApi, mockToken, payload, requests, testApp, useStrictNock, type Fixture } from "../../helpers/probot.js";

// The reviewer's brief end to end (issue 13): python-calc's pull requests judged by the real judge in
// the app, then `/ranex explain` and the verdict page. `behind` branched from main before main-moved
// landed a commit: the brief lists that commit. `honest` is up to date with main: the brief says none.

useStrictNock();

const REPO = "/repos/Codertocat/Hello-World";
let calc: string;

beforeAll(async () => {
  calc = await agentPullClone("python-calc", [["behind", 2], ["honest", 3]], ["main-moved"]);
}, 120_000);

interface Judged { dataDir: string; journalId: string; head: string; base: string; probot: Awaited<ReturnType<typeof testApp>>["probot"]; runner: Awaited<ReturnType<typeof testApp>>["runner"] }

/** The pull request judged by the app with the real judge, as GitHub's webhook would start it. */
async function judged(branch: string, number: number, baseBranch: string): Promise<Judged> {
  const dataDir = tempDir();
  const journal = journalDeps({ dataDir });
  // Only `record` and `dataDir` are read: the page facts are kept beside each journal entry, as in the app.
  const paged = withPageFacts({ ...journal, dataDir } as unknown as AppDeps);
  const { probot, runner } = await testApp({ ...journal, record: paged.record, judge: (request) => judge(request), dataDir });
  const base = git(calc, "rev-parse", baseBranch);
  const head = git(calc, "rev-parse", `refs/pull/${number}/head`);
  const api = githubApi();
  api.post(`${REPO}/check-runs`).reply(201, { id: 42 });
  api.get(`${REPO}/contents/.github%2Franex.yml?ref=${base}`).reply(200, { type: "file", encoding: "base64", content: Buffer.from(git(calc, "show", `${base}:.github/ranex.yml`)).toString("base64") });
  mockToken(api);
  api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
  await probot.receive({ id: deliveryId(), name: "pull_request", payload: pullEvent(branch, number, head, base, baseBranch) as never });
  await runner.idle();
  const done = requests("PATCH", /check-runs\/42$/).at(-1)!.body as Fixture;
  expect(done.conclusion, done.output?.summary).toBe("success");
  return { dataDir, journalId: done.external_id as string, head, base, probot, runner };
}

function pullEvent(branch: string, number: number, head: string, base: string, baseBranch: string): Fixture {
  return payload("pull_request.opened", (p) => {
    p.number = number;
    Object.assign(p.pull_request, { number, body: "Adds mul.\n\nRanex-Task: mul" });
    Object.assign(p.pull_request.head, { sha: head, ref: branch });
    Object.assign(p.pull_request.base, { sha: base, ref: baseBranch });
    p.repository.clone_url = calc;
  });
}

/** `/ranex explain` on the pull request, whose base branch is still at the tip it was judged on. */
async function explain(j: Judged, number: number, baseBranch: string): Promise<string> {
  // The installation token from the judgment is still cached.
  const api = githubApi();
  api.get(`${REPO}/pulls/${number}`).reply(200, pullEvent(`agent/x`, number, j.head, j.base, baseBranch).pull_request);
  api.get(`${REPO}/commits/${j.head}/check-runs`).query({ check_name: "ranex/judge", filter: "latest" })
    .reply(200, { total_count: 1, check_runs: [{ id: 42, status: "completed", conclusion: "success", external_id: j.journalId, output: { title: "CANDIDATE" } }] });
  api.get(`${REPO}/branches/${baseBranch}`).reply(200, { name: baseBranch, commit: { sha: j.base } });
  api.post(`${REPO}/issues/${number}/comments`).reply(201, { id: 9 });
  await j.probot.receive({ id: deliveryId(), name: "issue_comment", payload: payload("issue_comment.created", (p) => {
    p.comment.body = "/ranex explain";
    p.issue.number = number;
  }) as never });
  await j.runner.idle();
  return (requests("POST", new RegExp(`issues/${number}/comments$`)).at(-1)?.body as Fixture).body as string;
}

async function page(j: Judged): Promise<string> {
  const journal = await openJournal({ dataDir: j.dataDir });
  const verdict = verdictEntry((await journal.get(j.journalId))!)!;
  await journal.close();
  const pem = publicKeyPem((await dataDirKey(j.dataDir)).publicKey);
  return renderVerdictPage({
    verdict, previous: null, next: null, facts: await readPageFacts(j.dataDir, j.journalId), publicKeyPem: pem,
    signature: await verifyEnvelope(verdict.envelope, pem), links: { verdict: (id) => `/v/${id}`, journal: "/j", envelope: "/e" },
  });
}

const BASE_TITLE = "What the base branch's tip has that the head has not (the tip it was judged against)";

describe("the reviewer's brief of a real judgment", () => {
  it("a pull request behind its base: /ranex explain and the page list the base's commit the head lacks", async () => {
    const j = await judged("agent/behind", 2, "main-moved");
    const moved = git(calc, "rev-parse", "main-moved");
    const commit = `${moved.slice(0, 7)} stats: total; a test of sub; README (changes src/calc.py, README.md, src/stats.py, tests/test_calc.py, tests/test_stats.py; the pull request changes src/calc.py too)`;

    const text = await explain(j, 2, "main-moved");
    expect(text).toContain(`**CANDIDATE** for \`${j.head.slice(0, 7)}\``);
    expect(text).toContain(`**${BASE_TITLE}:**\n\n- ${commit}`);
    expect(text).toContain("- `tests/test_mul.py` self-authored: a reviewer should read it");
    expect(text).not.toContain("The base has moved on");

    const html = await page(j);
    const brief = html.split('<h2 id="brief">')[1]?.split("</section>")[0] ?? "";
    expect(brief).toContain(`<li>${commit}</li>`);
    expect(brief).toContain(`Judged against base tip <code>${moved.slice(0, 7)}</code>`);
    expect(html.indexOf('<h2 id="brief">')).toBeLessThan(html.indexOf('<h2 id="claims">'));
  }, 240_000);

  it("a pull request up to date with its base: the brief says none", async () => {
    const j = await judged("agent/honest", 3, "main");
    const text = await explain(j, 3, "main");
    expect(text).toContain(`**${BASE_TITLE}:** none: the head contains the base tip it was judged against.`);
    const html = await page(j);
    expect(html).toContain(`<h3>${BASE_TITLE.replace("'", "&#39;")}</h3><p><strong>none</strong>: the head contains the base tip it was judged against.</p>`);
  }, 240_000);
});
