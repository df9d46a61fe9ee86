// The App's small state files in the data dir (escalations, pushes, agent pull requests): one
// SQLite file each, opened per use so several processes on one data dir never hold a lock for long.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export function withStateDb<T>(dataDir: string, file: string, schema: string, work: (db: Database.Database) => T): T {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, file));
  try {
    db.pragma("busy_timeout = 15000");
    db.pragma("journal_mode = WAL");
    db.exec(schema);
    return work(db);
  } finally {
    db.close();
  }
}
