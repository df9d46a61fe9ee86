// The queue at scale: pg-boss on Postgres carries the deliveries (claiming, retry with backoff,
// expiry of a claim whose worker died), and three small tables beside it carry what pg-boss does not:
// delivery ids ever seen (redeliveries stay duplicates after pg-boss archives a job), the newest head
// per pull request (coalescing across processes), and the check runs each delivery created.
import { createHash } from "node:crypto";
import pg from "pg";
import PgBoss from "pg-boss";
import { DEFAULT_RETRY, type CheckRecord, type Coalescing, type CreateIntent, type Delivery, type DeliveryHandler, type DeliveryQueue, type EnqueueOptions, type QueueDepth, type RetryPolicy } from "./types.js";

const QUEUE = "ranex-deliveries";

// Tables live in the first schema of the connection's search_path, like the journal's.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS ranex_deliveries (id TEXT PRIMARY KEY, received_at TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS ranex_heads (key TEXT PRIMARY KEY, head TEXT NOT NULL, delivery TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ranex_checks (
  id BIGINT PRIMARY KEY, delivery TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL,
  completion JSONB, verdict BOOLEAN NOT NULL DEFAULT false, posted BOOLEAN NOT NULL DEFAULT false
);
CREATE INDEX IF NOT EXISTS ranex_checks_delivery ON ranex_checks (delivery);
ALTER TABLE ranex_checks ADD COLUMN IF NOT EXISTS refused_since BIGINT;
ALTER TABLE ranex_checks ADD COLUMN IF NOT EXISTS refused_status INT;
CREATE TABLE IF NOT EXISTS ranex_creating (
  delivery TEXT NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL, head TEXT NOT NULL, name TEXT NOT NULL,
  at BIGINT NOT NULL, PRIMARY KEY (delivery, owner, repo, head, name)
);
CREATE TABLE IF NOT EXISTS ranex_write_slots (key TEXT PRIMARY KEY, next_at BIGINT NOT NULL);
`;

const CHECK_COLUMNS = "SELECT id, delivery, owner, repo, completion, verdict, posted, refused_since, refused_status FROM ranex_checks";

interface CheckRow extends Omit<CheckRecord, "id" | "refused"> { id: string; refused_since: string | null; refused_status: number | null }

function checkOf(r: CheckRow): CheckRecord {
  const { refused_since: since, refused_status: status, ...rest } = r;
  return { ...rest, id: Number(r.id), refused: since === null ? null : { status, since: Number(since) } };
}

interface JobData extends Delivery { enqueuedAt: number }

export class PostgresQueue implements DeliveryQueue {
  readonly kind = "postgres";
  private workers: string[] = [];

  private constructor(private readonly pool: pg.Pool, private readonly boss: PgBoss, private readonly bossSchema: string) {}

  static async open(databaseUrl: string, retry: RetryPolicy = DEFAULT_RETRY): Promise<PostgresQueue> {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 6 });
    pool.on("error", () => undefined);
    const client = await pool.connect();
    let schema: string;
    try {
      await client.query("SELECT pg_advisory_lock(hashtext(current_schema() || '.ranex_queue'))");
      await client.query(SCHEMA);
      await client.query("SELECT pg_advisory_unlock(hashtext(current_schema() || '.ranex_queue'))");
      schema = ((await client.query("SELECT current_schema() AS s")).rows[0] as { s: string }).s;
    } finally {
      client.release();
    }
    // pg-boss keeps its own schema, named after ours so that each search_path gets its own queue.
    const bossSchema = schema === "public" ? "ranex_pgboss" : `${schema}_pgboss`;
    const leaseSeconds = Math.min(Math.ceil(retry.leaseMs / 1000), 23 * 3600);
    const boss = new PgBoss({
      connectionString: databaseUrl, schema: bossSchema, max: 4,
      // Expired claims (a worker that died) are found by maintenance: often enough that nothing stays
      // in progress much past the lease.
      maintenanceIntervalSeconds: Math.max(1, Math.min(60, Math.floor(leaseSeconds / 4))),
      monitorStateIntervalSeconds: Math.max(1, Math.min(60, Math.floor(leaseSeconds / 4))),
    });
    boss.on("error", () => undefined);
    await boss.start();
    await boss.createQueue(QUEUE, {
      name: QUEUE, retryLimit: retry.attempts - 1, retryDelay: Math.max(1, Math.round(retry.delayMs / 1000)), retryBackoff: true,
      expireInSeconds: leaseSeconds,
    });
    return new PostgresQueue(pool, boss, bossSchema);
  }

  async enqueue(delivery: Delivery, coalescing: Coalescing | null, options: EnqueueOptions = {}): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const seen = await client.query("INSERT INTO ranex_deliveries (id) VALUES ($1) ON CONFLICT DO NOTHING", [delivery.id]);
      if (seen.rowCount !== 1) {
        await client.query("ROLLBACK");
        return false;
      }
      if (coalescing !== null) {
        await client.query("INSERT INTO ranex_heads (key, head, delivery) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET head = excluded.head, delivery = excluded.delivery",
          [coalescing.key, coalescing.head, delivery.id]);
      }
      // In the same transaction: a delivery is either remembered and queued, or neither.
      const data: JobData = { ...delivery, enqueuedAt: Date.now() };
      await this.boss.send(QUEUE, data, {
        id: uuidOf(delivery.id), ...(options.low === true ? { priority: -1 } : {}),
        db: { executeSql: (text, values) => client.query(text, values) },
      });
      await client.query("COMMIT");
      return true;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async work(concurrency: number, handler: DeliveryHandler): Promise<void> {
    // One pg-boss worker per slot, each taking one delivery at a time.
    for (let i = 0; i < concurrency; i += 1) {
      this.workers.push(await this.boss.work<JobData>(QUEUE, { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
        if (job === undefined) return;
        const { enqueuedAt, ...delivery } = job.data;
        await handler({ ...delivery, attempt: job.retryCount + 1, lastAttempt: job.retryCount >= job.retryLimit, enqueuedAt });
      }));
    }
  }

  async latestHead(key: string): Promise<string | null> {
    const { rows } = await this.pool.query("SELECT head FROM ranex_heads WHERE key = $1", [key]);
    return (rows[0] as { head: string } | undefined)?.head ?? null;
  }

  async recordCheck(delivery: string, owner: string, repo: string, id: number): Promise<void> {
    await this.pool.query("INSERT INTO ranex_checks (id, delivery, owner, repo) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", [id, delivery, owner, repo]);
  }

  async recordCreating(delivery: string, intent: CreateIntent): Promise<void> {
    await this.pool.query("INSERT INTO ranex_creating (delivery, owner, repo, head, name, at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
      [delivery, intent.owner, intent.repo, intent.head, intent.name, intent.at]);
  }

  async creatingOf(delivery: string): Promise<CreateIntent[]> {
    const { rows } = await this.pool.query("SELECT owner, repo, head, name, at FROM ranex_creating WHERE delivery = $1 ORDER BY at", [delivery]);
    return (rows as { owner: string; repo: string; head: string; name: string; at: string }[]).map((r) => ({ ...r, at: Number(r.at) }));
  }

  async recordCompletion(id: number, body: Record<string, unknown>, verdict: boolean): Promise<Record<string, unknown>> {
    await this.pool.query("UPDATE ranex_checks SET completion = $2, verdict = $3, posted = false WHERE id = $1 AND (NOT verdict OR $3)", [id, JSON.stringify(body), verdict]);
    const { rows } = await this.pool.query("SELECT completion FROM ranex_checks WHERE id = $1", [id]);
    return (rows[0] as { completion: Record<string, unknown> | null } | undefined)?.completion ?? body;
  }

  async markPosted(id: number): Promise<void> {
    await this.pool.query("UPDATE ranex_checks SET posted = true WHERE id = $1", [id]);
  }

  async markRefused(id: number, status: number | null, since: number): Promise<void> {
    await this.pool.query("UPDATE ranex_checks SET refused_since = COALESCE(refused_since, $2), refused_status = $3 WHERE id = $1", [id, since, status]);
  }

  async checksOf(delivery: string): Promise<CheckRecord[]> {
    const { rows } = await this.pool.query(`${CHECK_COLUMNS} WHERE delivery = $1 ORDER BY id`, [delivery]);
    return (rows as CheckRow[]).map(checkOf);
  }

  async checkRecord(id: number): Promise<CheckRecord | null> {
    const { rows } = await this.pool.query(`${CHECK_COLUMNS} WHERE id = $1`, [id]);
    const row = rows[0] as CheckRow | undefined;
    return row === undefined ? null : checkOf(row);
  }

  async refusedChecks(): Promise<CheckRecord[]> {
    const { rows } = await this.pool.query(`${CHECK_COLUMNS} WHERE refused_since IS NOT NULL AND NOT posted ORDER BY id`);
    return (rows as CheckRow[]).map(checkOf);
  }

  async unpostedChecks(): Promise<CheckRecord[]> {
    const { rows } = await this.pool.query(`${CHECK_COLUMNS} WHERE refused_since IS NULL AND NOT posted ORDER BY id`);
    return (rows as CheckRow[]).map(checkOf);
  }

  /**
   * Write slots every worker shares (issue 21): the next free slot of an installation is reserved
   * in one statement, on the database's clock, so processes on other machines agree.
   */
  readonly writeSlots = {
    reserve: async (key: string, spacingMs: number): Promise<number> => {
      const { rows } = await this.pool.query(`WITH now AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
        INSERT INTO ranex_write_slots (key, next_at) SELECT $1, now.ms + $2 FROM now
        ON CONFLICT (key) DO UPDATE SET next_at = GREATEST(ranex_write_slots.next_at, (SELECT ms FROM now)) + $2
        RETURNING next_at - $2 - (SELECT ms FROM now) AS wait`, [key, spacingMs]);
      return Math.max(0, Number((rows[0] as { wait: string }).wait));
    },
  };

  async depth(): Promise<QueueDepth> {
    const { rows } = await this.pool.query(
      `SELECT state, count(*)::int AS n FROM ${this.bossSchema}.job WHERE name = $1 AND state IN ('created', 'retry', 'active') GROUP BY state`, [QUEUE]);
    const count = (state: string): number => (rows as { state: string; n: number }[]).find((r) => r.state === state)?.n ?? 0;
    return { queued: count("created") + count("retry"), active: count("active") };
  }

  async ping(): Promise<void> {
    await this.pool.query("SELECT 1");
  }

  async stop(graceMs = 30_000): Promise<void> {
    // Graceful: running handlers finish (up to the grace); unfinished jobs expire and are taken again.
    await this.boss.stop({ graceful: true, wait: true, timeout: graceMs });
    await this.pool.end();
  }
}

/** pg-boss ids are UUIDs; a delivery id (GitHub's is a UUID, a test's need not be) maps to one. */
function uuidOf(deliveryId: string): string {
  const hex = createHash("sha256").update(deliveryId).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
