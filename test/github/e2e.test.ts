import { beforeAll, describe, expect, it } from "vitest";
import { journalDeps } from "../../src/github/journal-deps.js";
import { judge } from "../../src/judge/judge.js";
import { agentPullClone } from "../helpers/fixtures.js";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";
import { deliveryId, githubApi, mockToken, payload, requests, testApp, useStrictNock, type Fixture } from "../helpers/probot.js";

// End to end with the real judge: a webhook in, a real fetch, real measurement in bubblewrap, a real
// signature and journal entry, and the check run GitHub would get.

useStrictNock();

const REPO = "/repos/Codertocat/Hello-World";
let calc: string;

beforeAll(async () => {
  // The example's base policy marks `agent/**` branches as agents' PRs; a clone gives each head
  // the pull-request ref GitHub would have.
  calc = await agentPullClone("python-calc", [["honest", 2], ["edit-test", 3]]);
}, 120_000);

async function judgeBranch(branch: string, number: number, body: string, source = () => calc): Promise<Fixture> {
  const dir = source();
  const dataDir = tempDir();
  const { probot, runner } = await testApp({ judge: (request) => judge(request), dataDir, ...journalDeps({ dataDir }) });
  const base = git(dir, "rev-parse", "main");
  const head = git(dir, "rev-parse", `refs/pull/${number}/head`);
  const api = githubApi();
  api.post(`${REPO}/check-runs`).reply(201, { id: 42 });
  api.get(`${REPO}/contents/.github%2Franex.yml?ref=${base}`).reply(200, { type: "file", encoding: "base64", content: Buffer.from(git(dir, "show", `${base}:.github/ranex.yml`)).toString("base64") });
  mockToken(api);
  api.patch(`${REPO}/check-runs/42`).times(2).reply(200, {});
  await probot.receive({
    id: deliveryId(), name: "pull_request",
    payload: payload("pull_request.opened", (p) => {
      p.number = number;
      p.pull_request.number = number;
      p.pull_request.head.sha = head;
      p.pull_request.head.ref = branch;
      p.pull_request.base.sha = base;
      p.pull_request.body = body;
      p.repository.clone_url = dir;
    }) as never,
  });
  await runner.idle();
  return requests("PATCH", /check-runs\/42$/).at(-1)!.body as Fixture;
}

describe("end to end with the real judge", () => {
  it("posts CANDIDATE as success for the honest head of task mul", async () => {
    const done = await judgeBranch("agent/honest", 2, "Adds mul.\n\nRanex-Task: mul");
    expect(done).toMatchObject({ status: "completed", conclusion: "success" });
    expect(done.output.title).toMatch(/^CANDIDATE/);
    expect(done.output.summary).toContain("| `tests.red_green` | ✅ pass |");
    expect(done.output.summary).toContain("| task | `mul` |");
  });

  it("posts FAIL as failure with an annotation on the edited test", async () => {
    const done = await judgeBranch("agent/edit-test", 3, "Makes the tests pass.");
    expect(done).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(done.output.title).toMatch(/^FAIL \(unsafe\): diff\.frozen/);
    expect(done.output.annotations).toContainEqual(expect.objectContaining({ path: "tests/test_calc.py", annotation_level: "failure", title: expect.stringMatching(/^diff\.frozen/) }));
  });

  it("fails an invalid base policy with an annotation on the offending line", async () => {
    const repo = TestRepo.init();
    repo.commit({ ".github/ranex.yml": "version: 1\nrequire: [diff.frozen]\nfrozne: [\"src/**\"]\n", "src/a.txt": "a\n" }, "base");
    repo.branch("agent/x");
    git(repo.dir, "update-ref", "refs/pull/4/head", repo.commit({ "src/a.txt": "b\n" }, "head"));
    const done = await judgeBranch("agent/x", 4, "", () => repo.dir);
    expect(done).toMatchObject({ conclusion: "failure" });
    expect(done.output.title).toMatch(/^FAIL \(incomplete\): policy\.valid: invalid \.github\/ranex\.yml/);
    expect(done.output.annotations).toContainEqual(expect.objectContaining({ path: ".github/ranex.yml", start_line: 3, end_line: 3 }));
  });
});
