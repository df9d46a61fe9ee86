// The embedded durable queue: one SQLite file in the data dir, used by one process (`npm start`).
// Deliveries survive a restart; on start, any delivery a dead process had claimed is queued again at
// once (no one else can be holding it), so a judgment cut off mid-way is finished, not stuck.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { backoffMs, DEFAULT_RETRY, type CheckRecord, type Coalescing, type CreateIntent, type Delivery, type DeliveryHandler, type DeliveryQueue, type EnqueueOptions, type QueueDepth, type RetryPolicy } from "./types.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, payload TEXT, state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0, run_after INTEGER NOT NULL, enqueued_at INTEGER NOT NULL,
  leased_until INTEGER, finished_at INTEGER, last_error TEXT
);
CREATE INDEX IF NOT EXISTS deliveries_ready ON deliveries (state, run_after);
CREATE TABLE IF NOT EXISTS heads (key TEXT PRIMARY KEY, head TEXT NOT NULL, delivery TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checks (
  id INTEGER PRIMARY KEY, delivery TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL,
  completion TEXT, verdict INTEGER NOT NULL DEFAULT 0, posted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS checks_delivery ON checks (delivery);
CREATE TABLE IF NOT EXISTS creating (
  delivery TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL, head TEXT NOT NULL, name TEXT NOT NULL,
  at INTEGER NOT NULL, PRIMARY KEY (delivery, owner, repo, head, name)
);
`;

/** Finished deliveries keep their id (redeliveries stay duplicates) but drop the payload after this. */
const PAYLOAD_RETENTION_MS = 7 * 24 * 3600_000;
const IDLE_POLL_MS = 1000;

const CHECK_COLUMNS = "SELECT id, delivery, owner, repo, completion, verdict, posted, refused_since, refused_status FROM checks";

interface CheckRow { id: number; delivery: string; owner: string; repo: string; completion: string | null; verdict: number; posted: number; refused_since: number | null; refused_status: number | null }

function checkOf(r: CheckRow): CheckRecord {
  return {
    id: r.id, delivery: r.delivery, owner: r.owner, repo: r.repo, completion: r.completion === null ? null : JSON.parse(r.completion) as Record<string, unknown>,
    verdict: r.verdict === 1, posted: r.posted === 1, refused: r.refused_since === null ? null : { status: r.refused_status, since: r.refused_since },
  };
}

interface Row { id: string; name: string; payload: string; attempts: number; enqueued_at: number }

export class SqliteQueue implements DeliveryQueue {
  readonly kind = "sqlite";
  private readonly db: Database.Database;
  private running = new Set<Promise<void>>();
  private stopped = false;
  private wake: (() => void) | null = null;

  constructor(dataDir: string, private readonly retry: RetryPolicy = DEFAULT_RETRY, private readonly now: () => number = Date.now) {
    mkdirSync(dataDir, { recursive: true });
    this.db = new Database(join(dataDir, "queue.sqlite"));
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(SCHEMA);
    // Added after the first release: low-priority deliveries (base-moved re-judgments) wait for the rest.
    const columns = this.db.prepare("PRAGMA table_info(deliveries)").all() as { name: string }[];
    if (!columns.some((c) => c.name === "priority")) this.db.exec("ALTER TABLE deliveries ADD COLUMN priority INTEGER NOT NULL DEFAULT 0");
    // Added with issue 21: check runs whose writes GitHub refused for the whole window.
    const checkColumns = this.db.prepare("PRAGMA table_info(checks)").all() as { name: string }[];
    if (!checkColumns.some((c) => c.name === "refused_since")) this.db.exec("ALTER TABLE checks ADD COLUMN refused_since INTEGER; ALTER TABLE checks ADD COLUMN refused_status INTEGER");
    // Recovery: this process owns the file, so whatever is `active` belonged to one that died.
    this.db.prepare("UPDATE deliveries SET state = 'queued', run_after = ? WHERE state = 'active'").run(this.now());
    this.db.prepare("UPDATE deliveries SET payload = NULL WHERE state IN ('done', 'failed') AND finished_at < ?").run(this.now() - PAYLOAD_RETENTION_MS);
  }

  async enqueue(delivery: Delivery, coalescing: Coalescing | null, options: EnqueueOptions = {}): Promise<boolean> {
    const insert = this.db.transaction(() => {
      const added = this.db.prepare("INSERT OR IGNORE INTO deliveries (id, name, payload, state, run_after, enqueued_at, priority) VALUES (?, ?, ?, 'queued', ?, ?, ?)")
        .run(delivery.id, delivery.name, JSON.stringify(delivery.payload), this.now(), this.now(), options.low === true ? -1 : 0).changes === 1;
      if (added && coalescing !== null) {
        this.db.prepare("INSERT INTO heads (key, head, delivery) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET head = excluded.head, delivery = excluded.delivery")
          .run(coalescing.key, coalescing.head, delivery.id);
      }
      return added;
    });
    const added = insert();
    if (added) this.wake?.();
    return added;
  }

  async work(concurrency: number, handler: DeliveryHandler): Promise<void> {
    void this.loop(concurrency, handler);
  }

  private async loop(concurrency: number, handler: DeliveryHandler): Promise<void> {
    while (!this.stopped) {
      if (this.running.size < concurrency) {
        const row = this.claim();
        if (row !== null) {
          const done = this.handle(row, handler).finally(() => { this.running.delete(done); this.wake?.(); });
          this.running.add(done);
          continue;
        }
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, IDLE_POLL_MS);
        this.wake = () => { clearTimeout(timer); this.wake = null; resolve(); };
      });
    }
  }

  private claim(): Row | null {
    const now = this.now();
    // Also takes back a lease that ran out (a handler hung past the judge's limits plus grace).
    const row = this.db.prepare(`UPDATE deliveries SET state = 'active', attempts = attempts + 1, leased_until = ?
      WHERE id = (SELECT id FROM deliveries WHERE (state = 'queued' AND run_after <= ?) OR (state = 'active' AND leased_until < ?) ORDER BY priority DESC, run_after LIMIT 1)
      RETURNING id, name, payload, attempts, enqueued_at`).get(now + this.retry.leaseMs, now, now) as Row | undefined;
    return row ?? null;
  }

  private async handle(row: Row, handler: DeliveryHandler): Promise<void> {
    const lastAttempt = row.attempts >= this.retry.attempts;
    try {
      await handler({ id: row.id, name: row.name, payload: JSON.parse(row.payload) as unknown, attempt: row.attempts, lastAttempt, enqueuedAt: row.enqueued_at });
      // Stopped past its grace: the row stays `active` and the next start takes it again.
      if (!this.db.open) return;
      this.db.prepare("UPDATE deliveries SET state = 'done', finished_at = ?, leased_until = NULL WHERE id = ?").run(this.now(), row.id);
    } catch (err) {
      if (!this.db.open) return;
      const message = err instanceof Error ? err.message : String(err);
      if (lastAttempt) {
        this.db.prepare("UPDATE deliveries SET state = 'failed', finished_at = ?, last_error = ?, leased_until = NULL WHERE id = ?").run(this.now(), message, row.id);
      } else {
        this.db.prepare("UPDATE deliveries SET state = 'queued', run_after = ?, last_error = ?, leased_until = NULL WHERE id = ?")
          .run(this.now() + backoffMs(this.retry, row.attempts), message, row.id);
      }
    }
  }

  async latestHead(key: string): Promise<string | null> {
    const row = this.db.prepare("SELECT head FROM heads WHERE key = ?").get(key) as { head: string } | undefined;
    return row?.head ?? null;
  }

  async recordCheck(delivery: string, owner: string, repo: string, id: number): Promise<void> {
    this.db.prepare("INSERT OR IGNORE INTO checks (id, delivery, owner, repo) VALUES (?, ?, ?, ?)").run(id, delivery, owner, repo);
  }

  async recordCreating(delivery: string, intent: CreateIntent): Promise<void> {
    this.db.prepare("INSERT OR IGNORE INTO creating (delivery, owner, repo, head, name, at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(delivery, intent.owner, intent.repo, intent.head, intent.name, intent.at);
  }

  async creatingOf(delivery: string): Promise<CreateIntent[]> {
    return this.db.prepare("SELECT owner, repo, head, name, at FROM creating WHERE delivery = ? ORDER BY at").all(delivery) as CreateIntent[];
  }

  async recordCompletion(id: number, body: Record<string, unknown>, verdict: boolean): Promise<Record<string, unknown>> {
    this.db.prepare("UPDATE checks SET completion = ?, verdict = ?, posted = 0 WHERE id = ? AND (verdict = 0 OR ? = 1)")
      .run(JSON.stringify(body), verdict ? 1 : 0, id, verdict ? 1 : 0);
    const held = this.db.prepare("SELECT completion FROM checks WHERE id = ?").get(id) as { completion: string | null } | undefined;
    return held?.completion == null ? body : JSON.parse(held.completion) as Record<string, unknown>;
  }

  async markPosted(id: number): Promise<void> {
    this.db.prepare("UPDATE checks SET posted = 1 WHERE id = ?").run(id);
  }

  async markRefused(id: number, status: number | null, since: number): Promise<void> {
    this.db.prepare("UPDATE checks SET refused_since = COALESCE(refused_since, ?), refused_status = ? WHERE id = ?").run(since, status, id);
  }

  async checksOf(delivery: string): Promise<CheckRecord[]> {
    return (this.db.prepare(`${CHECK_COLUMNS} WHERE delivery = ? ORDER BY id`).all(delivery) as CheckRow[]).map(checkOf);
  }

  async checkRecord(id: number): Promise<CheckRecord | null> {
    const row = this.db.prepare(`${CHECK_COLUMNS} WHERE id = ?`).get(id) as CheckRow | undefined;
    return row === undefined ? null : checkOf(row);
  }

  async refusedChecks(): Promise<CheckRecord[]> {
    return (this.db.prepare(`${CHECK_COLUMNS} WHERE refused_since IS NOT NULL AND posted = 0 ORDER BY id`).all() as CheckRow[]).map(checkOf);
  }

  async unpostedChecks(): Promise<CheckRecord[]> {
    return (this.db.prepare(`${CHECK_COLUMNS} WHERE refused_since IS NULL AND posted = 0 ORDER BY id`).all() as CheckRow[]).map(checkOf);
  }

  async depth(): Promise<QueueDepth> {
    const rows = this.db.prepare("SELECT state, COUNT(*) AS n FROM deliveries WHERE state IN ('queued', 'active') GROUP BY state").all() as { state: string; n: number }[];
    const count = (state: string): number => rows.find((r) => r.state === state)?.n ?? 0;
    return { queued: count("queued"), active: count("active") };
  }

  async ping(): Promise<void> {
    this.db.prepare("SELECT 1").get();
  }

  async stop(graceMs = 30_000): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await Promise.race([Promise.allSettled([...this.running]), new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    // Handlers still running keep their `active` rows: the next start takes them again.
    this.db.close();
  }
}
