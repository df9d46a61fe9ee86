import { Writable } from "node:stream";
import { pino } from "pino";
import type { Logger } from "probot";
import { describe, expect, it } from "vitest";
import { SqliteQueue } from "../../src/queue/sqlite.js";
import { deliveryHandler } from "../../src/queue/worker.js";
import { tempDir } from "../helpers/git-repo.js";
import { deliveryId, requests, testApp, useStrictNock } from "../helpers/probot.js";
import { standInJudge } from "../github/stand-in.js";
import { agentEvent, lifecycleApp, REPO } from "../github/pull-request/helpers.js";

// What cannot succeed on a retry is not retried (issue 21): the worker drops the delivery, on its
// first try, with a log line naming why; a transient error still goes back to the queue.

useStrictNock();

function capture(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = pino({ level: "info" }, new Writable({ write: (chunk, _enc, done) => { lines.push(String(chunk)); done(); } })) as unknown as Logger;
  return { log, lines };
}

describe("the queue worker", () => {
  it("drops a delivery GitHub answered 422 on its first try, naming why, and does not throw it back to the queue", async () => {
    const { probot, api } = await lifecycleApp();
    api.post(`${REPO}/check-runs`).reply(422, { message: "No commit found for SHA: ec26c3e" });
    const queue = new SqliteQueue(tempDir("ranex-worker-"));
    const { log, lines } = capture();
    const handle = deliveryHandler({ queue, probot, log });
    await handle({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened"), attempt: 1, lastAttempt: false, enqueuedAt: Date.now() });
    expect(lines.join("")).toContain("delivery dropped, not retried: GitHub answered 422 to POST https://api.github.com/repos/Codertocat/Hello-World/check-runs, which will not change on a retry: No commit found for SHA: ec26c3e");
    expect(requests("POST", /check-runs$/)).toHaveLength(1);
    await queue.stop(100);
  });

  it("drops a null payload before any handler runs", async () => {
    // No GitHub mock at all: a dropped delivery asks GitHub nothing.
    const { probot } = await testApp({ judge: standInJudge().judge, dataDir: tempDir() });
    const queue = new SqliteQueue(tempDir("ranex-worker-"));
    const { log, lines } = capture();
    await deliveryHandler({ queue, probot, log })({ id: deliveryId(), name: "pull_request", payload: null, attempt: 1, lastAttempt: false, enqueuedAt: Date.now() });
    expect(lines.join("")).toContain("delivery dropped, not retried: the pull_request payload is null, not an object");
    await queue.stop(100);
  });

  it("gives a transient error back to the queue to try again", async () => {
    const { probot, api } = await lifecycleApp();
    api.post(`${REPO}/check-runs`).reply(502, { message: "Bad Gateway" });
    const queue = new SqliteQueue(tempDir("ranex-worker-"));
    const { log, lines } = capture();
    const handle = deliveryHandler({ queue, probot, log });
    await expect(handle({ id: deliveryId(), name: "pull_request", payload: agentEvent("pull_request.opened"), attempt: 1, lastAttempt: false, enqueuedAt: Date.now() })).rejects.toThrow();
    expect(lines.join("")).toContain("the queue will try again");
    await queue.stop(100);
  });
});
