import { pino } from "pino";
import type { Logger } from "probot";
import { describe, expect, it } from "vitest";
import { appOctokit } from "../../src/ops/octokit.js";
import { MemoryWriteSlots } from "../../src/github/write-throttle.js";
import { handling } from "../../src/queue/check-recorder.js";
import { SqliteQueue } from "../../src/queue/sqlite.js";
import { tempDir } from "../helpers/git-repo.js";
import { githubApi, requests, useStrictNock } from "../helpers/probot.js";

// The server's Octokit (recorder, write retry, per-installation spacing over Probot's plugins): an
// error completion sent after a journalled verdict failed to post goes out as the held verdict. Each
// layer of Octokit's hook chain gets the same options object, whatever an outer layer passes on, so
// the recorder changes it in place (issue 21 found the body swap lost on the wire before).

useStrictNock();

describe("the check recorder in the server's Octokit", () => {
  it("sends the held verdict, not a later error completion, and marks it posted", async () => {
    const queue = new SqliteQueue(tempDir("ranex-recorder-"));
    const log = pino({ level: "silent" }) as unknown as Logger;
    let now = 0;
    const Octokit = appOctokit(log, { retry: { windowMs: 60_000, now: () => now, sleep: async (ms) => { now += ms; } }, slots: new MemoryWriteSlots(() => now) });
    const octokit = new Octokit({ auth: { token: "ghs_recorder" } } as never) as unknown as { request: (route: string, params: object) => Promise<unknown> };
    await queue.recordCheck("d-1", "o", "r", 42);
    const verdict = { status: "completed", conclusion: "failure", external_id: "entry-1", output: { title: "FAIL (incomplete): tests.regression", summary: "s" } };
    await queue.recordCompletion(42, verdict, true);
    const api = githubApi();
    api.patch("/repos/o/r/check-runs/42").reply(200, { id: 42 });
    await handling.run({ delivery: "d-1", queue, jobs: [] }, () => octokit.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
      owner: "o", repo: "r", check_run_id: 42, status: "completed", conclusion: "failure", output: { title: "error: 502", summary: "s" },
    }));
    expect(requests("PATCH", /check-runs\/42$/).map((r) => r.body)).toEqual([verdict]);
    expect(await queue.checkRecord(42)).toMatchObject({ posted: true, verdict: true });
    await queue.stop(100);
  });
});
