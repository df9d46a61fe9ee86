// What the app remembers about each pull request, in its own SQLite file in the data dir
// (`pull-requests.db`), like the escalation store beside merge authority:
// - agent-ness: once a PR is an agent's it stays one for its life, whatever its labels say later;
// - the labels the app itself set (`ranex:escalated`): only those are honoured;
// - the signed verdict of each (repository, base tip, head, task): the same inputs get the recorded
//   verdict back instead of a new measurement, so nobody re-rolls a flaky suite by poking the PR.
// The journal still holds every verdict, signed; this file is an index of what the app decided.
import { JournalAnchorSchema, type JournalAnchor } from "../../journal/anchor.js";
import type Database from "better-sqlite3";
import { withStateDb, type AddedColumn } from "../state-db.js";
import type { DsseEnvelope } from "../../attest/index.js";
import type { Verdict } from "../../kernel/index.js";

export const PULL_REQUEST_FILE = "pull-requests.db";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ranex_agent_pulls (
  repository TEXT NOT NULL, pull INTEGER NOT NULL, rule TEXT NOT NULL, head TEXT NOT NULL, at TEXT NOT NULL,
  PRIMARY KEY (repository, pull)
);
CREATE TABLE IF NOT EXISTS ranex_agent_heads (
  repository TEXT NOT NULL, head TEXT NOT NULL, pull INTEGER NOT NULL, PRIMARY KEY (repository, head, pull)
);
CREATE TABLE IF NOT EXISTS ranex_app_labels (
  repository TEXT NOT NULL, pull INTEGER NOT NULL, label TEXT NOT NULL, PRIMARY KEY (repository, pull, label)
);
CREATE TABLE IF NOT EXISTS ranex_verdicts (
  repository TEXT NOT NULL, base TEXT NOT NULL, head TEXT NOT NULL, task TEXT NOT NULL,
  journal_id TEXT NOT NULL, verdict TEXT NOT NULL, timings TEXT NOT NULL, envelope TEXT NOT NULL, anchor TEXT,
  PRIMARY KEY (repository, base, head, task)
);
CREATE TABLE IF NOT EXISTS ranex_overrides (
  repository TEXT NOT NULL, pull INTEGER NOT NULL, verdict_entry TEXT NOT NULL, head TEXT NOT NULL, base TEXT NOT NULL, base_ref TEXT NOT NULL,
  journal_id TEXT NOT NULL, by_login TEXT NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL, anchor TEXT, ended TEXT,
  PRIMARY KEY (repository, pull, verdict_entry)
);
`;

/** Files from before issue 13 hold verdicts without their journal anchor: the column is added, NULL in those rows. */
const ADDED: readonly AddedColumn[] = [{ table: "ranex_verdicts", column: "anchor", definition: "TEXT" }];

export interface AgentRecord {
  /** The rule that first marked the PR (`author agent-bot[bot]`, `label agent`). */
  rule: string;
  /** The head it was first seen with. */
  head: string;
  at: string;
}

export interface RecordedJudgment {
  journalId: string;
  verdict: Verdict;
  timings: Record<string, number>;
  envelope: DsseEnvelope;
  /**
   * The verdict's position in the journal, posted again with the recorded verdict so every check run
   * that carries it is anchored (issue 13). `unknown` for a verdict recorded before anchors were kept.
   */
  anchor?: JournalAnchor | "unknown";
}

/**
 * A `/ranex override` in force (issue 23): bound to one verdict entry of one pull request, so a new
 * push, a moved base or a re-judgment (each a new verdict entry) leaves it behind.
 */
export interface RecordedOverride {
  verdictEntry: string;
  head: string;
  base: string;
  baseRef: string;
  journalId: string;
  by: string;
  reason: string;
  at: string;
  anchor: JournalAnchor | "unknown";
}

export interface JudgmentInputs {
  repository: string;
  base: string;
  head: string;
  task: string | null;
}

export class PullRequestStore {
  constructor(private readonly dataDir: string) {}

  /** The record that made this PR an agent's, or null when it never was one. */
  agentRecord(repository: string, pull: number): AgentRecord | null {
    return this.with((db) => (db.prepare("SELECT rule, head, at FROM ranex_agent_pulls WHERE repository = ? AND pull = ?").get(repository, pull) as AgentRecord | undefined) ?? null);
  }

  /** Marks the PR an agent's (the first rule is kept) and remembers this head as an agent head. */
  recordAgent(repository: string, pull: number, rule: string, head: string, at: string): void {
    this.with((db) => db.transaction(() => {
      db.prepare("INSERT OR IGNORE INTO ranex_agent_pulls (repository, pull, rule, head, at) VALUES (?, ?, ?, ?, ?)").run(repository, pull, rule, head, at);
      db.prepare("INSERT OR IGNORE INTO ranex_agent_heads (repository, head, pull) VALUES (?, ?, ?)").run(repository, head, pull);
    })());
  }

  /**
   * Forgets that a label made the PR an agent's: only when a writer with no hand in the change took
   * the label off, and only when the label was the rule that marked it. True when something was forgotten.
   */
  releaseLabel(repository: string, pull: number, label: string): boolean {
    return this.with((db) => db.prepare("DELETE FROM ranex_agent_pulls WHERE repository = ? AND pull = ? AND rule = ?")
      .run(repository, pull, `label ${label}`).changes === 1);
  }

  /** The agent PRs this commit was ever judged as the head of. */
  agentPullsWithHead(repository: string, head: string): number[] {
    return this.with((db) => (db.prepare("SELECT pull FROM ranex_agent_heads WHERE repository = ? AND head = ? ORDER BY pull").all(repository, head) as { pull: number }[]).map((r) => r.pull));
  }

  recordAppLabel(repository: string, pull: number, label: string): void {
    this.with((db) => db.prepare("INSERT OR IGNORE INTO ranex_app_labels (repository, pull, label) VALUES (?, ?, ?)").run(repository, pull, label));
  }

  appLabels(repository: string, pull: number): string[] {
    return this.with((db) => (db.prepare("SELECT label FROM ranex_app_labels WHERE repository = ? AND pull = ? ORDER BY label").all(repository, pull) as { label: string }[]).map((r) => r.label));
  }

  recordedJudgment(inputs: JudgmentInputs): RecordedJudgment | null {
    const row = this.with((db) => db.prepare("SELECT journal_id, verdict, timings, envelope, anchor FROM ranex_verdicts WHERE repository = ? AND base = ? AND head = ? AND task = ?")
      .get(inputs.repository, inputs.base, inputs.head, inputs.task ?? "") as { journal_id: string; verdict: string; timings: string; envelope: string; anchor: string | null } | undefined);
    if (row === undefined) return null;
    return {
      journalId: row.journal_id, verdict: JSON.parse(row.verdict) as Verdict, timings: JSON.parse(row.timings) as Record<string, number>,
      envelope: JSON.parse(row.envelope) as DsseEnvelope, anchor: anchorOfRow(row.anchor, row.journal_id),
    };
  }

  /** Keeps the newest signed verdict for these inputs (a re-judgment replaces the older one), with its journal anchor. */
  recordJudgment(inputs: JudgmentInputs, judgment: RecordedJudgment): void {
    const anchor = typeof judgment.anchor === "object" ? JSON.stringify(judgment.anchor) : null;
    this.with((db) => db.prepare(`INSERT INTO ranex_verdicts (repository, base, head, task, journal_id, verdict, timings, envelope, anchor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (repository, base, head, task) DO UPDATE SET journal_id = excluded.journal_id, verdict = excluded.verdict, timings = excluded.timings, envelope = excluded.envelope, anchor = excluded.anchor`)
      .run(inputs.repository, inputs.base, inputs.head, inputs.task ?? "", judgment.journalId, JSON.stringify(judgment.verdict), JSON.stringify(judgment.timings), JSON.stringify(judgment.envelope), anchor));
  }

  recordOverride(repository: string, pull: number, override: RecordedOverride): void {
    const anchor = typeof override.anchor === "object" ? JSON.stringify(override.anchor) : null;
    this.with((db) => db.prepare(`INSERT INTO ranex_overrides (repository, pull, verdict_entry, head, base, base_ref, journal_id, by_login, reason, at, anchor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (repository, pull, verdict_entry) DO UPDATE SET journal_id = excluded.journal_id, by_login = excluded.by_login, reason = excluded.reason, at = excluded.at, anchor = excluded.anchor, ended = NULL`)
      .run(repository, pull, override.verdictEntry, override.head, override.base, override.baseRef, override.journalId, override.by, override.reason, override.at, anchor));
  }

  /** The override in force on this verdict of this pull request, or null. */
  overrideOf(repository: string, pull: number, verdictEntry: string): RecordedOverride | null {
    const row = this.with((db) => db.prepare("SELECT * FROM ranex_overrides WHERE repository = ? AND pull = ? AND verdict_entry = ? AND ended IS NULL")
      .get(repository, pull, verdictEntry) as OverrideRow | undefined);
    return row === undefined ? null : overrideOfRow(row);
  }

  /** Overrides in force on pull requests into this base branch: a push to it ends them. */
  overridesInto(repository: string, baseRef: string): (RecordedOverride & { pull: number })[] {
    return this.with((db) => (db.prepare("SELECT * FROM ranex_overrides WHERE repository = ? AND base_ref = ? AND ended IS NULL ORDER BY pull")
      .all(repository, baseRef) as OverrideRow[]).map((row) => ({ ...overrideOfRow(row), pull: row.pull })));
  }

  /** Ends an override (the base moved on); true when it was still in force. */
  endOverride(repository: string, pull: number, verdictEntry: string, why: string): boolean {
    return this.with((db) => db.prepare("UPDATE ranex_overrides SET ended = ? WHERE repository = ? AND pull = ? AND verdict_entry = ? AND ended IS NULL")
      .run(why, repository, pull, verdictEntry).changes === 1);
  }

  private with<T>(work: (db: Database.Database) => T): T {
    return withStateDb(this.dataDir, PULL_REQUEST_FILE, SCHEMA, work, ADDED);
  }
}

/** The stored anchor, only when it is well formed and names this very entry; anything else is not known. */
function anchorOfRow(text: string | null, journalId: string): JournalAnchor | "unknown" {
  if (text === null) return "unknown";
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "unknown";
  }
  const parsed = JournalAnchorSchema.safeParse(json);
  return parsed.success && parsed.data.entry.id === journalId ? parsed.data : "unknown";
}

interface OverrideRow {
  repository: string; pull: number; verdict_entry: string; head: string; base: string; base_ref: string;
  journal_id: string; by_login: string; reason: string; at: string; anchor: string | null;
}

function overrideOfRow(row: OverrideRow): RecordedOverride {
  return {
    verdictEntry: row.verdict_entry, head: row.head, base: row.base, baseRef: row.base_ref, journalId: row.journal_id,
    by: row.by_login, reason: row.reason, at: row.at, anchor: anchorOfRow(row.anchor, row.journal_id),
  };
}
