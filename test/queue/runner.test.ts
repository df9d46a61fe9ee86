import { describe, expect, it } from "vitest";
import { Closed, Superseded } from "../../src/github/pull-request/jobs.js";
import { coalescingOf } from "../../src/queue/receiver.js";
import { handling, type HandlingContext } from "../../src/queue/check-recorder.js";
import { QueueJobRunner } from "../../src/queue/runner.js";
import { SqliteQueue } from "../../src/queue/sqlite.js";
import { tempDir } from "../helpers/git-repo.js";

// The runner the app's handlers see in a worker: jobs tied to the delivery being handled, and
// aborted with Superseded when a newer head of their pull request arrives, here or elsewhere.

function holdUntilAborted(reasons: unknown[]): (signal: AbortSignal) => Promise<void> {
  return (signal) => new Promise((resolve) => {
    const stop = (): void => { reasons.push(signal.reason); resolve(); };
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}

describe("QueueJobRunner", () => {
  it("aborts a running job when a newer head is submitted in the same process", async () => {
    const queue = new SqliteQueue(tempDir("ranex-runner-"));
    const runner = new QueueJobRunner(queue, () => {}, 50);
    const reasons: unknown[] = [];
    runner.submit({ key: "o/r#1", head: "a".repeat(40), run: holdUntilAborted(reasons) });
    runner.submit({ key: "o/r#1", head: "b".repeat(40), run: async () => {} });
    await runner.idle();
    expect(reasons).toEqual([new Superseded("b".repeat(40))]);
    await queue.stop(100);
  });

  it("aborts a job when another process enqueued a newer head for its pull request", async () => {
    const queue = new SqliteQueue(tempDir("ranex-runner-"));
    const runner = new QueueJobRunner(queue, () => {}, 50);
    await queue.enqueue({ id: "first", name: "pull_request", payload: {} }, { key: "o/r#2", head: "a".repeat(40) });
    const reasons: unknown[] = [];
    runner.submit({ key: "o/r#2", head: "a".repeat(40), run: holdUntilAborted(reasons) });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(reasons).toEqual([]);
    await queue.enqueue({ id: "second", name: "pull_request", payload: {} }, { key: "o/r#2", head: "c".repeat(40) });
    await runner.idle();
    expect(reasons).toEqual([new Superseded("c".repeat(40))]);
    await queue.stop(100);
  });

  it("starts an outdated job already aborted, and ties every job to the delivery being handled", async () => {
    const queue = new SqliteQueue(tempDir("ranex-runner-"));
    const runner = new QueueJobRunner(queue, () => {}, 50);
    await queue.enqueue({ id: "newer", name: "pull_request", payload: {} }, { key: "o/r#3", head: "d".repeat(40) });
    const context: HandlingContext = { delivery: "older", queue, jobs: [] };
    const reasons: unknown[] = [];
    handling.run(context, () => runner.submit({ key: "o/r#3", head: "a".repeat(40), run: holdUntilAborted(reasons) }));
    expect(context.jobs).toHaveLength(1);
    await Promise.all(context.jobs);
    expect(reasons).toEqual([new Superseded("d".repeat(40))]);
    expect(runner.accept()).toBe(true);
    await queue.stop(100);
  });
});

describe("QueueJobRunner and closed pull requests", () => {
  it("aborts a job with Closed when its pull request was closed in another process, and says it is closed", async () => {
    const queue = new SqliteQueue(tempDir("ranex-runner-"));
    const runner = new QueueJobRunner(queue, () => {}, 50);
    const head = "a".repeat(40);
    await queue.enqueue({ id: "opened", name: "pull_request", payload: {} }, coalescingOf("pull_request", { action: "opened", number: 4, pull_request: { head: { sha: head } }, repository: { name: "r", owner: { login: "o" } } }));
    const reasons: unknown[] = [];
    runner.submit({ key: "o/r#4", head, run: holdUntilAborted(reasons) });
    await queue.enqueue({ id: "closed", name: "pull_request", payload: {} }, coalescingOf("pull_request", { action: "closed", number: 4, pull_request: { head: { sha: head } }, repository: { name: "r", owner: { login: "o" } } }));
    await runner.idle();
    expect(reasons).toEqual([new Closed()]);
    expect(await runner.isClosed("o/r#4")).toBe(true);
    await queue.enqueue({ id: "reopened", name: "pull_request", payload: {} }, coalescingOf("pull_request", { action: "reopened", number: 4, pull_request: { head: { sha: head } }, repository: { name: "r", owner: { login: "o" } } }));
    expect(await runner.isClosed("o/r#4")).toBe(false);
    await queue.stop(100);
  });
});
