import { randomUUID } from "node:crypto";
import { canonicalJson, sha256Hex } from "../kernel/index.js";
import { ENTRY_KINDS, JournalError, type EntryKind, type JournalEntry, type JournalHead } from "./types.js";

export const GENESIS_HASH = "0".repeat(64);
/** How many entries one page read takes: bounded memory for journals of any length. */
export const PAGE_SIZE = 500;

export function entryHash(fields: Pick<JournalEntry, "sequence" | "prevHash" | "kind" | "subject" | "payload">): string {
  return sha256Hex(canonicalJson({
    sequence: fields.sequence, prevHash: fields.prevHash, kind: fields.kind, subject: fields.subject, payload: fields.payload,
  }));
}

/** The entry that extends `head`, with its payload stored as canonical JSON text (exact on every backend). */
export function nextEntry(head: JournalHead | null, kind: EntryKind, subject: string, payload: unknown): { entry: JournalEntry; payloadText: string } {
  if (!(ENTRY_KINDS as readonly string[]).includes(kind)) throw new JournalError(`unknown journal entry kind ${JSON.stringify(kind)}`);
  if (typeof subject !== "string" || subject.length === 0) throw new JournalError("a journal entry needs a subject digest");
  let payloadText: string;
  try {
    payloadText = canonicalJson(payload);
  } catch (err) {
    throw new JournalError(`the journal payload has no JSON form: ${(err as Error).message}`);
  }
  // Store exactly what was hashed: the payload as it reads back from its canonical text.
  const stored: unknown = JSON.parse(payloadText);
  const sequence = head === null ? 1 : head.sequence + 1;
  const prevHash = head === null ? GENESIS_HASH : head.hash;
  const fields = { sequence, prevHash, kind, subject, payload: stored };
  return { entry: { id: randomUUID(), ...fields, hash: entryHash(fields) }, payloadText };
}

export function sameHead(a: JournalHead | null, b: JournalHead | null): boolean {
  return a === null || b === null ? a === b : a.sequence === b.sequence && a.hash === b.hash;
}

/** A stored row as both backends return it. */
export interface EntryRow {
  id: string;
  sequence: number | string;
  prev_hash: string;
  kind: string;
  subject: string;
  payload: string;
  hash: string;
}

/** Turns a stored row back into an entry. A payload that no longer parses is kept as its raw text, so verify names it. */
export function rowToEntry(row: EntryRow): JournalEntry {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    payload = { unparseable: row.payload };
  }
  return {
    id: row.id, sequence: Number(row.sequence), prevHash: row.prev_hash, kind: row.kind as EntryKind,
    subject: row.subject, payload, hash: row.hash,
  };
}

/**
 * Entries in sequence order after `options.after`, read a page at a time from a backend's
 * `page(after, limit)` query, up to `options.limit`.
 */
export async function* pagedEntries(
  page: (after: number, limit: number) => Promise<EntryRow[]> | EntryRow[],
  options: { after?: number; limit?: number } = {},
): AsyncIterable<JournalEntry> {
  let after = options.after ?? 0;
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  while (remaining > 0) {
    const rows = await page(after, Math.min(PAGE_SIZE, remaining));
    for (const row of rows) yield rowToEntry(row);
    if (rows.length < PAGE_SIZE) return;
    after = Number(rows[rows.length - 1]!.sequence);
    remaining -= rows.length;
  }
}
