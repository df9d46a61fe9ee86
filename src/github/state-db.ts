// The App's small state files in the data dir (escalations, pushes, agent pull requests): one
// SQLite file each, opened per use so several processes on one data dir never hold a lock for long.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

/** A column a later version added to a table that existing files already hold without it. */
export interface AddedColumn {
  table: string;
  column: string;
  /** Its SQL type and default, as `ALTER TABLE … ADD COLUMN` takes them (`TEXT`: NULL in old rows). */
  definition: string;
}

export function withStateDb<T>(dataDir: string, file: string, schema: string, work: (db: Database.Database) => T, added: readonly AddedColumn[] = []): T {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, file));
  try {
    db.pragma("busy_timeout = 15000");
    db.pragma("journal_mode = WAL");
    db.exec(schema);
    for (const column of added) addColumnIfMissing(db, column);
    return work(db);
  } finally {
    db.close();
  }
}

/**
 * Adds the column to a file made before it existed. Under the write lock (BEGIN IMMEDIATE), so two
 * processes opening the same old file at once never both add it; rows already there keep NULL.
 */
function addColumnIfMissing(db: Database.Database, { table, column, definition }: AddedColumn): void {
  const has = () => (db.pragma(`table_info(${table})`) as { name: string }[]).some((c) => c.name === column);
  if (has()) return;
  db.transaction(() => {
    if (!has()) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
  }).immediate();
}
