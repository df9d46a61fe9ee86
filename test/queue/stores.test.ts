import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresQueue } from "../../src/queue/postgres.js";
import { SqliteQueue } from "../../src/queue/sqlite.js";
import { isRefusedCreation, placeholderId, type ClaimedDelivery, type DeliveryQueue, type RetryPolicy } from "../../src/queue/types.js";
import { tempDir } from "../helpers/git-repo.js";
import { adminSql, freshSchema, postgresAvailable, skippedName, urlInSchema } from "../helpers/postgres.js";

// Both stores behind one contract: redeliveries refused, newest head per pull request, retries with
// backoff and a last try, the check-run outbox where a verdict is never replaced by an error.

const SCHEMA = freshSchema("queue_test");
const RETRY: RetryPolicy = { attempts: 3, delayMs: 1000, leaseMs: 60_000 };
const withPostgres = await postgresAvailable();

beforeAll(async () => { if (withPostgres) await adminSql(`CREATE SCHEMA ${SCHEMA}`); });
afterAll(async () => { if (withPostgres) await adminSql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; DROP SCHEMA IF EXISTS ${SCHEMA}_pgboss CASCADE`); });

const stores: [string, () => Promise<DeliveryQueue>][] = [
  ["sqlite", async () => new SqliteQueue(tempDir("ranex-queue-"), RETRY)],
  ...(withPostgres ? [["postgres", () => PostgresQueue.open(urlInSchema(SCHEMA), RETRY)] as [string, () => Promise<DeliveryQueue>]] : []),
];
// Without a server the Postgres store is not silently dropped: it is reported skipped by name.
if (!withPostgres) describe.skip(skippedName("postgres queue"), () => it.skip("needs a reachable RANEX_TEST_DATABASE_URL", () => undefined));

function until<T>(probe: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = (): void => {
      const value = probe();
      if (value !== undefined) return resolve(value);
      if (Date.now() > deadline) return reject(new Error("timed out"));
      setTimeout(tick, 50);
    };
    tick();
  });
}

describe.each(stores)("%s queue", (_name, open) => {
  it("queues a delivery once, however often it is delivered, and hands it out once", async () => {
    const queue = await open();
    try {
      const delivery = { id: `d-${Date.now()}`, name: "pull_request", payload: { n: 1 } };
      expect(await queue.enqueue(delivery, null)).toBe(true);
      expect(await queue.enqueue(delivery, null)).toBe(false);
      expect(await queue.depth()).toEqual({ queued: 1, active: 0 });
      const seen: ClaimedDelivery[] = [];
      await queue.work(2, async (d) => { seen.push(d); });
      await until(() => (seen.length === 1 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(seen).toEqual([expect.objectContaining({ id: delivery.id, payload: { n: 1 }, attempt: 1, lastAttempt: false })]);
      expect(await queue.enqueue(delivery, null)).toBe(false);
    } finally {
      await queue.stop(1000);
    }
  }, 30_000);

  it("makes the newest enqueued head the latest for its pull request", async () => {
    const queue = await open();
    try {
      const key = `o/r#${Date.now()}`;
      expect(await queue.latestHead(key)).toBeNull();
      await queue.enqueue({ id: `h1-${key}`, name: "pull_request", payload: {} }, { key, head: "a".repeat(40) });
      await queue.enqueue({ id: `h2-${key}`, name: "pull_request", payload: {} }, { key, head: "b".repeat(40) });
      // A redelivery of the older one changes nothing.
      await queue.enqueue({ id: `h1-${key}`, name: "pull_request", payload: {} }, { key, head: "a".repeat(40) });
      expect(await queue.latestHead(key)).toBe("b".repeat(40));
    } finally {
      await queue.stop(1000);
    }
  }, 30_000);

  it("retries a failing delivery with backoff, and says which try is the last", async () => {
    const queue = await open();
    try {
      const id = `r-${Date.now()}`;
      const tries: { attempt: number; lastAttempt: boolean; at: number }[] = [];
      await queue.work(1, async (d) => {
        if (d.id !== id) return;
        tries.push({ attempt: d.attempt, lastAttempt: d.lastAttempt, at: Date.now() });
        throw new Error("GitHub said 502");
      });
      await queue.enqueue({ id, name: "pull_request", payload: {} }, null);
      await until(() => (tries.length === 3 ? true : undefined), 30_000);
      expect(tries.map(({ attempt, lastAttempt }) => ({ attempt, lastAttempt }))).toEqual([
        { attempt: 1, lastAttempt: false }, { attempt: 2, lastAttempt: false }, { attempt: 3, lastAttempt: true }]);
      expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(900);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(tries).toHaveLength(3);
      expect(await queue.depth()).toEqual({ queued: 0, active: 0 });
    } finally {
      await queue.stop(1000);
    }
  }, 40_000);

  it("keeps a verdict completion over a later error completion, until it is posted", async () => {
    const queue = await open();
    try {
      const id = Date.now() % 1_000_000_000;
      await queue.recordCheck("d-outbox", "o", "r", id);
      const verdict = { status: "completed", conclusion: "success", external_id: "entry-1" };
      const error = { status: "completed", conclusion: "failure", output: { title: "error: 502" } };
      expect(await queue.recordCompletion(id, verdict, true)).toEqual(verdict);
      expect(await queue.recordCompletion(id, error, false)).toEqual(verdict);
      expect(await queue.checksOf("d-outbox")).toEqual([{ delivery: "d-outbox", owner: "o", repo: "r", id, completion: verdict, verdict: true, posted: false, refused: null }]);
      await queue.markPosted(id);
      expect((await queue.checksOf("d-outbox"))[0]).toMatchObject({ posted: true });
    } finally {
      await queue.stop(1000);
    }
  }, 30_000);

  it("keeps the first intent to create a check run per head and name, before any id is known", async () => {
    const queue = await open();
    try {
      const delivery = `d-intent-${Date.now()}`;
      await queue.recordCreating(delivery, { owner: "o", repo: "r", head: "a".repeat(40), name: "ranex/judge", at: 1_000 });
      await queue.recordCreating(delivery, { owner: "o", repo: "r", head: "a".repeat(40), name: "ranex/judge", at: 2_000 });
      await queue.recordCreating(delivery, { owner: "o", repo: "r", head: "a".repeat(40), name: "ranex/approval", at: 3_000 });
      expect(await queue.creatingOf(delivery)).toEqual([
        { owner: "o", repo: "r", head: "a".repeat(40), name: "ranex/judge", at: 1_000 },
        { owner: "o", repo: "r", head: "a".repeat(40), name: "ranex/approval", at: 3_000 },
      ]);
      expect(await queue.creatingOf(`${delivery}-other`)).toEqual([]);
    } finally {
      await queue.stop(1000);
    }
  }, 30_000);

  it("hands the sweep the check runs no try saw completed, and holds a refused creation under a negative id (issue 21)", async () => {
    const queue = await open();
    try {
      const id = (Date.now() % 1_000_000_000) + 11;
      const held = placeholderId(Date.now(), Math.random());
      expect(isRefusedCreation({ id: held })).toBe(true);
      await queue.recordCheck("d-open", "o", "r", id);
      await queue.recordCheck("d-open", "o", "r", held);
      await queue.recordCompletion(held, { name: "ranex/approval", head_sha: "a".repeat(40), status: "completed", conclusion: "failure" }, false);
      await queue.markRefused(held, 500, 1_000);
      // The open one is the sweep's to watch; the refused creation is in the refused list, not both.
      expect((await queue.unpostedChecks()).map((c) => c.id)).toContain(id);
      expect((await queue.unpostedChecks()).map((c) => c.id)).not.toContain(held);
      expect(await queue.checkRecord(held)).toMatchObject({ id: held, completion: { name: "ranex/approval" }, refused: { status: 500, since: 1_000 } });
      expect((await queue.refusedChecks()).map((c) => c.id)).toContain(held);
      await queue.markPosted(id);
      expect((await queue.unpostedChecks()).map((c) => c.id)).not.toContain(id);
    } finally {
      await queue.stop(1000);
    }
  }, 30_000);

  it("hands a check run whose writes were refused to the sweep, until it is posted (issue 21)", async () => {
    const queue = await open();
    try {
      const id = (Date.now() % 1_000_000_000) + 7;
      await queue.recordCheck("d-refused", "o", "r", id);
      await queue.recordCompletion(id, { status: "completed", conclusion: "failure", external_id: "entry-2" }, true);
      expect((await queue.refusedChecks()).map((c) => c.id)).not.toContain(id);
      await queue.markRefused(id, 500, 1_000);
      // The first refusal is kept: the outage is named from its start.
      await queue.markRefused(id, 502, 2_000);
      expect(await queue.checkRecord(id)).toMatchObject({ id, verdict: true, refused: { status: 502, since: 1_000 } });
      expect((await queue.refusedChecks()).map((c) => c.id)).toContain(id);
      await queue.markPosted(id);
      expect((await queue.refusedChecks()).map((c) => c.id)).not.toContain(id);
      expect(await queue.checkRecord(id + 1)).toBeNull();
    } finally {
      await queue.stop(1000);
    }
  }, 30_000);
});

describe.runIf(withPostgres)("postgres write slots", () => {
  it("spaces one installation's writes a second apart across processes, and leaves others free", async () => {
    const [a, b] = await Promise.all([PostgresQueue.open(urlInSchema(SCHEMA), RETRY), PostgresQueue.open(urlInSchema(SCHEMA), RETRY)]);
    try {
      const key = `installation:test-${Date.now()}`;
      const waits = await Promise.all([a, b, a, b].map((q) => q.writeSlots.reserve(key, 1000)));
      // Four reservations from two processes: one at once, then one a second apart each.
      expect(waits.map((w) => Math.round(w / 1000)).sort()).toEqual([0, 1, 2, 3]);
      expect(await a.writeSlots.reserve(`${key}-other`, 1000)).toBe(0);
    } finally {
      await Promise.all([a.stop(1000), b.stop(1000)]);
    }
  }, 30_000);
});

describe("sqlite queue recovery", () => {
  it("takes again, on the next start, a delivery its process died holding", async () => {
    const dir = tempDir("ranex-queue-");
    const dead = new SqliteQueue(dir, RETRY);
    await dead.enqueue({ id: "held", name: "pull_request", payload: { n: 7 } }, null);
    let claimed = false;
    await dead.work(1, () => { claimed = true; return new Promise(() => {}); });
    await until(() => (claimed ? true : undefined));
    expect(await dead.depth()).toEqual({ queued: 0, active: 1 });
    // The process "dies": nothing finishes the handler; a new process opens the same file.
    const restarted = new SqliteQueue(dir, RETRY);
    try {
      expect(await restarted.depth()).toEqual({ queued: 1, active: 0 });
      const seen: ClaimedDelivery[] = [];
      await restarted.work(1, async (d) => { seen.push(d); });
      await until(() => (seen.length === 1 ? true : undefined));
      expect(seen[0]).toMatchObject({ id: "held", attempt: 2, payload: { n: 7 } });
    } finally {
      await restarted.stop(1000);
    }
  }, 20_000);
});
