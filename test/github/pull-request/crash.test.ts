import { describe, expect, it } from "vitest";
import { deliveryHandler } from "../../../src/queue/worker.js";
import { SqliteQueue } from "../../../src/queue/sqlite.js";
import { tempDir } from "../../helpers/git-repo.js";
import { deliveryId, requests, useStrictNock } from "../../helpers/probot.js";
import { agentEvent, completion, conclusions, lifecycleApp, mockCheck, mockPolicy, REPO } from "./helpers.js";

// A judgment cut off by a crash (the process died mid-way; the queue hands the delivery out again):
// the cut-off check run is completed `cancelled`, never the passing `neutral`, and the head is judged.

useStrictNock();

describe("a crash mid-judgment", () => {
  it("completes the cut-off check run cancelled and judges the head again", async () => {
    const { probot, runner, api, stand } = await lifecycleApp();
    const queue = new SqliteQueue(tempDir("ranex-crash-"));
    const id = deliveryId();
    // What the first try left: check run 41 created for this delivery, never completed.
    await queue.recordCheck(id, "Codertocat", "Hello-World", 41);
    api.get(`${REPO}/check-runs/41`).reply(200, { id: 41, name: "ranex/judge", head_sha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", status: "in_progress", conclusion: null });
    api.patch(`${REPO}/check-runs/41`).reply(200, {});
    mockCheck(api, 42);
    mockPolicy(api);
    const handle = deliveryHandler({ queue, probot, log: probot.log });
    await handle({ id, name: "pull_request", payload: agentEvent("pull_request.opened"), attempt: 2, lastAttempt: false, enqueuedAt: Date.now() });
    await runner.idle();
    expect(completion(41)).toMatchObject({ conclusion: "cancelled", output: { title: "interrupted: judged again" } });
    expect(completion(42)).toMatchObject({ conclusion: "success" });
    expect(conclusions()).not.toContain("neutral");
    expect(stand.requests).toHaveLength(1);
    expect(requests("POST", /check-runs$/)).toHaveLength(1);
    await queue.stop(100);
  });
});
