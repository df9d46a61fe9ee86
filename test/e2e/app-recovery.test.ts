import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureRepo } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";
import { APP_ID, deliver, healthWhenIdle, PRIVATE_KEY, pullRequestPayload, startApp, waitFor, type AppProcess } from "./standin/app-process.js";
import { GitHubStandIn } from "./standin/github.js";

// The server killed outright (SIGKILL: no shutdown code runs) while it judges, then started again on
// the same data dir: the delivery is taken again, the cut-off check run is completed as interrupted,
// the head is judged to a verdict, and nothing is left queued or in progress.

const OWNER = "Codertocat";
const REPO = "Hello-World";
const github = new GitHubStandIn(APP_ID, PRIVATE_KEY);
const dataDir = tempDir("ranex-e2e-recovery-");
let app: AppProcess | undefined;

beforeAll(async () => {
  await github.start();
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await github.close();
});

describe("recovery after SIGKILL", () => {
  it("finishes a judgment cut off mid-way, and leaves no check run in progress", async () => {
    const cloneUrl = github.addRepo(OWNER, REPO, await fixtureRepo("python-calc"), { 2: "honest" });
    const head = github.rev(OWNER, REPO, "refs/pull/2/head");
    app = await startApp(github, { dataDir });
    const event = pullRequestPayload({ number: 2, head, base: github.rev(OWNER, REPO, "main"), headRef: "agent/honest", body: "Ranex-Task: mul", cloneUrl });
    expect((await deliver(app.url, "pull_request", event)).status).toBe(202);
    await waitFor("the judgment to start", () => github.runsFor(head).some((run) => run.status === "in_progress"), 60_000, app.output);
    expect(await app.stop("SIGKILL")).toBe("SIGKILL");
    expect(github.runsFor(head).map((run) => run.status)).toEqual(["in_progress"]);

    app = await startApp(github, { dataDir });
    const runs = await waitFor("a verdict after the restart", () => {
      const all = github.runsFor(head);
      return all.length === 2 && all.every((run) => run.status === "completed") ? all : null;
    }, 120_000, app.output);
    // Cut off, it has no verdict: `cancelled`, never the passing `neutral`.
    expect(runs[0]).toMatchObject({ conclusion: "cancelled", output: { title: "interrupted: judged again" } });
    expect(runs[1]).toMatchObject({ conclusion: "success", external_id: expect.any(String) });
    const health = await healthWhenIdle(app.url);
    expect(health, JSON.stringify(health)).toMatchObject({ ok: true, queue: { queued: 0, active: 0 } });
    expect(github.problems).toEqual([]);
  }, 240_000);
});
