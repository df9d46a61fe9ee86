import pg from "pg";
import { nextEntry, pagedEntries, rowToEntry, type EntryRow } from "./chain.js";
import { JournalError, type EntryKind, type Journal, type JournalEntry, type JournalHead, type VerifyOptions } from "./types.js";
import { verifyEntries } from "./verify.js";

const COLUMNS = "id, sequence, prev_hash, kind, subject, payload, hash";
// One advisory lock per schema: appenders (and the schema set-up) in any process wait for each other.
const LOCK = "pg_advisory_xact_lock(hashtext(current_schema() || '.ranex_journal'))";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ranex_journal (
  id TEXT PRIMARY KEY,
  sequence BIGINT NOT NULL UNIQUE CHECK (sequence > 0),
  prev_hash TEXT NOT NULL,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  payload TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE
);
CREATE OR REPLACE FUNCTION ranex_journal_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ranex journal is append-only: % is refused', TG_OP;
END $$;
`;

const TRIGGERS = [
  "CREATE TRIGGER ranex_journal_no_change BEFORE UPDATE OR DELETE ON ranex_journal FOR EACH ROW EXECUTE FUNCTION ranex_journal_append_only()",
  "CREATE TRIGGER ranex_journal_no_truncate BEFORE TRUNCATE ON ranex_journal FOR EACH STATEMENT EXECUTE FUNCTION ranex_journal_append_only()",
];

/**
 * The journal on Postgres, for many stateless workers. The table lives in the first schema of the
 * connection's search_path (set it with `?options=-c%20search_path%3D<schema>` in the URL).
 */
export class PostgresJournal implements Journal {
  private constructor(private readonly pool: pg.Pool) {}

  static async open(databaseUrl: string): Promise<PostgresJournal> {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    // An idle client that loses its server must not crash the process; the next query reports it.
    pool.on("error", () => undefined);
    const journal = new PostgresJournal(pool);
    try {
      await journal.transaction(async (client) => {
        await client.query(`SELECT ${LOCK}`);
        await client.query(SCHEMA);
        for (const create of TRIGGERS) {
          const name = /CREATE TRIGGER (\w+)/.exec(create)?.[1] ?? "";
          const found = await client.query(
            "SELECT 1 FROM pg_trigger WHERE tgname = $1 AND tgrelid = to_regclass(current_schema() || '.ranex_journal')", [name]);
          if (found.rowCount === 0) await client.query(create);
        }
      });
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new JournalError(`cannot open the journal on Postgres: ${(err as Error).message}`);
    }
    return journal;
  }

  async head(): Promise<JournalHead | null> {
    return readHead(this.pool);
  }

  async append(kind: EntryKind, subject: string, build: (head: JournalHead | null) => Promise<unknown>): Promise<JournalEntry> {
    // The advisory lock is held by this transaction across build()'s awaits, and released by COMMIT.
    return this.transaction(async (client) => {
      await client.query(`SELECT ${LOCK}`);
      const head = await readHead(client);
      const { entry, payloadText } = nextEntry(head, kind, subject, await build(head));
      await client.query(
        `INSERT INTO ranex_journal (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [entry.id, entry.sequence, entry.prevHash, entry.kind, entry.subject, payloadText, entry.hash],
      );
      return entry;
    });
  }

  async get(id: string): Promise<JournalEntry | null> {
    const result = await this.pool.query<EntryRow>(`SELECT ${COLUMNS} FROM ranex_journal WHERE id = $1`, [id]);
    const row = result.rows[0];
    return row === undefined ? null : rowToEntry(row);
  }

  entries(options: { after?: number; limit?: number } = {}): AsyncIterable<JournalEntry> {
    return pagedEntries(async (after, limit) => (await this.pool.query<EntryRow>(
      `SELECT ${COLUMNS} FROM ranex_journal WHERE sequence > $1 ORDER BY sequence LIMIT $2`, [after, limit])).rows, options);
  }

  async verify(options?: VerifyOptions) {
    return verifyEntries(this.entries(), options);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

async function readHead(db: pg.Pool | pg.PoolClient): Promise<JournalHead | null> {
  const { rows } = await db.query<{ sequence: string; hash: string }>("SELECT sequence, hash FROM ranex_journal ORDER BY sequence DESC LIMIT 1");
  const row = rows[0];
  return row === undefined ? null : { sequence: Number(row.sequence), hash: row.hash };
}
