// Who pushed to each agent pull request: the sender of every `pull_request.synchronize`, kept for
// the PR's life, because GitHub's API names a commit's author and committer but never its pusher,
// and its timeline names only force-pushers. Kept where the journal is (SQLite in the data dir, or
// Postgres when DATABASE_URL is set), so every replica reads the same pushes.
import type Database from "better-sqlite3";
import { withStateDb } from "../state-db.js";
import pg from "pg";
import type { PushFacts } from "../../kernel/approval.js";

export const PUSHES_FILE = "pushes.db";

export interface PushRecord {
  repository: string;
  pull: number;
  login: string;
  before: string | null;
  after: string;
}

export interface PushStore {
  /** Idempotent: a redelivered webhook records nothing new. */
  record(push: PushRecord): Promise<void>;
  /** Every push recorded for the pull request, oldest first. */
  pushesOf(repository: string, pull: number): Promise<PushFacts[]>;
  close(): Promise<void>;
}

const COLUMNS = "repository TEXT NOT NULL, pull INTEGER NOT NULL, login TEXT NOT NULL, before_sha TEXT, after_sha TEXT NOT NULL";
const KEY = "UNIQUE (repository, pull, login, after_sha)";

interface Row { login: string; before_sha: string | null; after_sha: string }

const toFacts = (rows: readonly Row[]): PushFacts[] => rows.map((r) => ({ login: r.login, before: r.before_sha, after: r.after_sha, via: "synchronize" }));

export function openPushStore(options: { dataDir: string; databaseUrl?: string }): PushStore {
  return options.databaseUrl !== undefined && options.databaseUrl !== "" ? new PostgresPushes(options.databaseUrl) : new SqlitePushes(options.dataDir);
}

class SqlitePushes implements PushStore {
  constructor(private readonly dataDir: string) {}

  record(push: PushRecord): Promise<void> {
    this.with((db) => db.prepare("INSERT OR IGNORE INTO ranex_pushes (repository, pull, login, before_sha, after_sha) VALUES (?, ?, ?, ?, ?)")
      .run(push.repository, push.pull, push.login, push.before, push.after));
    return Promise.resolve();
  }

  pushesOf(repository: string, pull: number): Promise<PushFacts[]> {
    const rows = this.with((db) => db.prepare("SELECT login, before_sha, after_sha FROM ranex_pushes WHERE repository = ? AND pull = ? ORDER BY seq")
      .all(repository, pull) as Row[]);
    return Promise.resolve(toFacts(rows));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private with<T>(work: (db: Database.Database) => T): T {
    return withStateDb(this.dataDir, PUSHES_FILE, `CREATE TABLE IF NOT EXISTS ranex_pushes (seq INTEGER PRIMARY KEY AUTOINCREMENT, ${COLUMNS}, ${KEY})`, work);
  }
}

class PostgresPushes implements PushStore {
  private readonly pool: pg.Pool;
  private ready: Promise<unknown> | null = null;

  constructor(databaseUrl: string) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // An idle client that loses its server must not crash the process; the next query reports it.
    this.pool.on("error", () => undefined);
  }

  async record(push: PushRecord): Promise<void> {
    await this.schema();
    await this.pool.query("INSERT INTO ranex_pushes (repository, pull, login, before_sha, after_sha) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
      [push.repository, push.pull, push.login, push.before, push.after]);
  }

  async pushesOf(repository: string, pull: number): Promise<PushFacts[]> {
    await this.schema();
    const { rows } = await this.pool.query<Row>("SELECT login, before_sha, after_sha FROM ranex_pushes WHERE repository = $1 AND pull = $2 ORDER BY seq", [repository, pull]);
    return toFacts(rows);
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private schema(): Promise<unknown> {
    this.ready ??= this.pool.query(`CREATE TABLE IF NOT EXISTS ranex_pushes (seq BIGSERIAL PRIMARY KEY, ${COLUMNS}, ${KEY})`).catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }
}
