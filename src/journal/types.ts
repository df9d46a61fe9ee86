// The append-only, hash-chained journal (DESIGN.md, invariant 9).

export const ENTRY_KINDS = ["verdict", "approval", "rejudge", "escalation", "override"] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** A position in the journal: the last entry's sequence number and hash. */
export interface JournalHead {
  sequence: number;
  hash: string;
}

export interface JournalEntry {
  id: string;
  /** 1 for the first entry, then one more per entry, no gaps. */
  sequence: number;
  /** The previous entry's hash; 64 zeros for the first entry. */
  prevHash: string;
  kind: EntryKind;
  /** The subject digest the entry is about (`sha256:<hex>`). */
  subject: string;
  /** Normally the signed DSSE envelope, which itself names the head it extends. */
  payload: unknown;
  /** sha256 hex over the RFC 8785 canonical JSON of { sequence, prevHash, kind, subject, payload }. */
  hash: string;
}

export interface VerifyOptions {
  /** Every entry's payload must be a DSSE envelope signed by this key and naming the head it extends. */
  publicKeyPem?: string;
  /** The journal must hold this position with this hash: catches truncation and rollback. */
  anchor?: JournalHead;
  /**
   * A signed envelope that was published (posted to GitHub): the journal must hold the head it says
   * it extends AND, right after it, the entry that carries this very envelope.
   */
  anchorEnvelope?: unknown;
  /**
   * Positions published where the operator cannot rewrite them (check runs GitHub keeps, issue 13),
   * each with a description of where it was read: the journal must hold every one of them.
   */
  published?: PublishedPosition[];
}

export interface PublishedPosition extends JournalHead {
  /** Where it was read, for the failure message: `check run ranex/judge 123 on abc1234 (url)`. */
  source: string;
}

export type JournalVerification =
  | { ok: true; count: number; head: JournalHead | null }
  | { ok: false; sequence: number; id: string | null; reason: string };

export interface Journal {
  head(): Promise<JournalHead | null>;
  /**
   * Appends one entry to one unbroken chain, also when other processes append at once. `build` makes
   * the payload for the head the entry extends (so a signed payload can name it); it may be called
   * again with a newer head if another writer got there first, so it must have no other effect.
   */
  append(kind: EntryKind, subject: string, build: (head: JournalHead | null) => Promise<unknown>): Promise<JournalEntry>;
  get(id: string): Promise<JournalEntry | null>;
  /** Entries in sequence order, after the given sequence number, read in pages. */
  entries(options?: { after?: number; limit?: number }): AsyncIterable<JournalEntry>;
  /** Walks the chain and the signatures; names the first bad entry. */
  verify(options?: VerifyOptions): Promise<JournalVerification>;
  close(): Promise<void>;
}

export class JournalError extends Error {
  override readonly name = "JournalError";
}
