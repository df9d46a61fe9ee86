import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { nextEntry, pagedEntries, rowToEntry, sameHead, type EntryRow } from "./chain.js";
import { JournalError, type EntryKind, type Journal, type JournalEntry, type JournalHead, type VerifyOptions } from "./types.js";
import { verifyEntries } from "./verify.js";

/** How long a writer waits for another process's write lock before giving up. */
const BUSY_TIMEOUT_MS = 15_000;
/** How often an append rebuilds its payload because another writer moved the head first. */
const MAX_ATTEMPTS = 200;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ranex_journal (
  id TEXT PRIMARY KEY,
  sequence INTEGER NOT NULL UNIQUE CHECK (sequence > 0),
  prev_hash TEXT NOT NULL,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  payload TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE
);
-- Append-only: the code has no update or delete path, and the database refuses one too.
CREATE TRIGGER IF NOT EXISTS ranex_journal_no_update BEFORE UPDATE ON ranex_journal
  BEGIN SELECT RAISE(ABORT, 'the ranex journal is append-only: entries cannot be updated'); END;
CREATE TRIGGER IF NOT EXISTS ranex_journal_no_delete BEFORE DELETE ON ranex_journal
  BEGIN SELECT RAISE(ABORT, 'the ranex journal is append-only: entries cannot be deleted'); END;
`;

const COLUMNS = "id, sequence, prev_hash, kind, subject, payload, hash";

/** The embedded journal: one SQLite file in WAL mode, shared safely by several processes. */
export class SqliteJournal implements Journal {
  private readonly db: Database.Database;

  private constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.db = new Database(path);
    // The busy timeout first: switching to WAL and creating the schema may wait for another process.
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = FULL");
    this.db.exec(SCHEMA);
  }

  static open(path: string): SqliteJournal {
    try {
      return new SqliteJournal(path);
    } catch (err) {
      throw new JournalError(`cannot open the journal at ${path}: ${(err as Error).message}`);
    }
  }

  async head(): Promise<JournalHead | null> {
    return this.readHead();
  }

  async append(kind: EntryKind, subject: string, build: (head: JournalHead | null) => Promise<unknown>): Promise<JournalEntry> {
    const insert = this.db.prepare(`INSERT INTO ranex_journal (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // build() may await, and a SQLite write lock cannot be held across an await without blocking
      // every other writer; so build for the head seen, then insert only if it is still the head.
      const head = this.readHead();
      const { entry, payloadText } = nextEntry(head, kind, subject, await build(head));
      const inserted = this.db.transaction(() => {
        if (!sameHead(this.readHead(), head)) return false;
        insert.run(entry.id, entry.sequence, entry.prevHash, entry.kind, entry.subject, payloadText, entry.hash);
        return true;
      }).immediate();
      if (inserted) return entry;
      await sleep(Math.floor(Math.random() * 5 * Math.min(attempt + 1, 10)));
    }
    throw new JournalError(`could not append to the journal: the head kept moving for ${MAX_ATTEMPTS} attempts`);
  }

  async get(id: string): Promise<JournalEntry | null> {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM ranex_journal WHERE id = ?`).get(id) as EntryRow | undefined;
    return row === undefined ? null : rowToEntry(row);
  }

  entries(options: { after?: number; limit?: number } = {}): AsyncIterable<JournalEntry> {
    const page = this.db.prepare(`SELECT ${COLUMNS} FROM ranex_journal WHERE sequence > ? ORDER BY sequence LIMIT ?`);
    return pagedEntries((after, limit) => page.all(after, limit) as EntryRow[], options);
  }

  async verify(options?: VerifyOptions) {
    return verifyEntries(this.entries(), options);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private readHead(): JournalHead | null {
    const row = this.db.prepare("SELECT sequence, hash FROM ranex_journal ORDER BY sequence DESC LIMIT 1").get() as
      { sequence: number; hash: string } | undefined;
    return row === undefined ? null : { sequence: row.sequence, hash: row.hash };
  }
}
