// The retry budget's small state: each FAIL judgment of a pull request, and whether the PR was
// escalated. Kept in its own SQLite file in the data dir (`escalation.db`), not derived from the
// journal: the journal has no index by pull request, and reading it whole on every FAIL grows
// without bound. The journal still holds every verdict and every escalation, signed; this file is
// only a counter, and losing it costs at most one extra escalation comment (the PR's
// `ranex:escalated` label is checked too).
import type Database from "better-sqlite3";
import { withStateDb } from "../state-db.js";

export const ESCALATION_FILE = "escalation.db";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ranex_attempts (
  repository TEXT NOT NULL,
  pull INTEGER NOT NULL,
  judgment TEXT NOT NULL,
  head TEXT NOT NULL,
  class TEXT NOT NULL,
  reason TEXT NOT NULL,
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  UNIQUE (repository, pull, judgment)
);
CREATE TABLE IF NOT EXISTS ranex_escalations (
  repository TEXT NOT NULL,
  pull INTEGER NOT NULL,
  reason TEXT NOT NULL,
  journal_id TEXT,
  PRIMARY KEY (repository, pull)
);
`;

export interface Attempt {
  /** The verdict's journal entry: each judgment (a new head or a re-judgment) is one attempt. */
  judgment: string;
  head: string;
  class: string;
  reason: string;
}

export class EscalationStore {
  constructor(private readonly dataDir: string) {}

  /** Records a FAIL (idempotent per judgment) and returns every FAIL of the PR so far, oldest first. */
  recordFail(repository: string, pull: number, attempt: Attempt): Attempt[] {
    return this.with((db) => {
      db.prepare("INSERT OR IGNORE INTO ranex_attempts (repository, pull, judgment, head, class, reason) VALUES (?, ?, ?, ?, ?, ?)")
        .run(repository, pull, attempt.judgment, attempt.head, attempt.class, attempt.reason);
      return db.prepare("SELECT judgment, head, class, reason FROM ranex_attempts WHERE repository = ? AND pull = ? ORDER BY seq")
        .all(repository, pull) as Attempt[];
    });
  }

  /**
   * Claims the one escalation of this PR: true the first time, false ever after (also when another
   * process claimed it first), so a PR gets one comment, never one per push.
   */
  claimEscalation(repository: string, pull: number, reason: string): boolean {
    return this.with((db) => db.prepare("INSERT OR IGNORE INTO ranex_escalations (repository, pull, reason) VALUES (?, ?, ?)")
      .run(repository, pull, reason).changes === 1);
  }

  /** Gives the claim back when the comment could not be posted, so the next FAIL tries again. */
  releaseEscalation(repository: string, pull: number): void {
    this.with((db) => db.prepare("DELETE FROM ranex_escalations WHERE repository = ? AND pull = ?").run(repository, pull));
  }

  noteJournal(repository: string, pull: number, journalId: string): void {
    this.with((db) => db.prepare("UPDATE ranex_escalations SET journal_id = ? WHERE repository = ? AND pull = ?").run(journalId, repository, pull));
  }

  private with<T>(work: (db: Database.Database) => T): T {
    return withStateDb(this.dataDir, ESCALATION_FILE, SCHEMA, work);
  }
}
