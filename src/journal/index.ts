// The append-only, hash-chained journal: SQLite embedded, Postgres at scale (issue 4).
import { join } from "node:path";
import { PostgresJournal } from "./postgres.js";
import { SqliteJournal } from "./sqlite.js";
import type { Journal } from "./types.js";

export * from "./types.js";
export { entryHash, GENESIS_HASH } from "./chain.js";
export { verifyEntries } from "./verify.js";
export { appendSigned, appendSignedVerdict } from "./append-signed.js";
export { anchorOf, parseAnchorBlock, renderAnchorBlock, withAnchorBlock, type JournalAnchor } from "./anchor.js";

export const JOURNAL_FILE = "journal.db";

/** Postgres when a database URL is given (DATABASE_URL), else SQLite at `<dataDir>/journal.db`. */
export async function openJournal(options: { dataDir: string; databaseUrl?: string }): Promise<Journal> {
  if (options.databaseUrl !== undefined && options.databaseUrl !== "") return PostgresJournal.open(options.databaseUrl);
  return SqliteJournal.open(join(options.dataDir, JOURNAL_FILE));
}
