import { describe, expect, it } from "vitest";
import { InProcessRunner, Superseded } from "../../../src/github/pull-request/jobs.js";

function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

describe("InProcessRunner", () => {
  it("runs no more jobs at once than its concurrency", async () => {
    const runner = new InProcessRunner(2);
    let running = 0;
    let peak = 0;
    for (let i = 0; i < 6; i++) {
      runner.submit({ key: `k${i}`, head: `h${i}`, run: async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
      } });
    }
    await runner.idle();
    expect(peak).toBe(2);
  });

  it("aborts a running job of the same key with Superseded naming the new head", async () => {
    const runner = new InProcessRunner(2);
    const gate = deferred();
    let reason: unknown;
    runner.submit({ key: "pr#1", head: "aaa", run: async (signal) => { await gate.promise; reason = signal.reason; } });
    runner.submit({ key: "pr#1", head: "bbbbbbbbb", run: async () => {} });
    gate.resolve();
    await runner.idle();
    expect(reason).toBeInstanceOf(Superseded);
    expect((reason as Superseded).message).toBe("superseded by bbbbbbb");
  });

  it("starts a queued job that was superseded at once, already aborted, so it can close its check run", async () => {
    const runner = new InProcessRunner(1);
    const gate = deferred();
    const seen: [string, boolean][] = [];
    runner.submit({ key: "other", head: "x", run: () => gate.promise });
    runner.submit({ key: "pr#1", head: "old", run: async (signal) => { seen.push(["old", signal.aborted]); } });
    runner.submit({ key: "pr#1", head: "new", run: async (signal) => { seen.push(["new", signal.aborted]); } });
    expect(seen).toEqual([["old", true]]);
    gate.resolve();
    await runner.idle();
    expect(seen).toEqual([["old", true], ["new", false]]);
  });

  it("accepts each delivery id once", () => {
    const runner = new InProcessRunner(1);
    expect([runner.accept("d1"), runner.accept("d2"), runner.accept("d1")]).toEqual([true, true, false]);
  });

  it("keeps running after a job throws, and reports it", async () => {
    const errors: unknown[] = [];
    const runner = new InProcessRunner(1, (err) => errors.push(err));
    runner.submit({ key: "a", head: "1", run: async () => { throw new Error("boom"); } });
    let ran = false;
    runner.submit({ key: "b", head: "2", run: async () => { ran = true; } });
    await runner.idle();
    expect([ran, String(errors[0])]).toEqual([true, "Error: boom"]);
  });
});
