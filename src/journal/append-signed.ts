import {
  buildStatement, signStatement, type DsseEnvelope, type InTotoStatement, type SigningKey, type StatementContext,
} from "../attest/index.js";
import type { Verdict } from "../kernel/index.js";
import type { EntryKind, Journal, JournalEntry, JournalHead } from "./types.js";

/**
 * Signs a statement that names the journal head it extends and appends the envelope as one entry.
 * `statementFor` may run more than once (when another writer moves the head first), so it must be pure.
 */
export async function appendSigned(
  journal: Journal, key: SigningKey, kind: EntryKind, subject: string,
  statementFor: (head: JournalHead | null) => InTotoStatement,
): Promise<{ entry: JournalEntry; envelope: DsseEnvelope }> {
  let envelope: DsseEnvelope | null = null;
  const entry = await journal.append(kind, subject, async (head) => {
    envelope = await signStatement(statementFor(head), key);
    return envelope;
  });
  if (envelope === null) throw new Error("the journal appended without building a payload");
  return { entry, envelope };
}

/** The judge's last step: the verdict signed as an in-toto statement, journalled, both returned. */
export async function appendSignedVerdict(
  journal: Journal, key: SigningKey, verdict: Verdict, context: Omit<StatementContext, "journal">,
): Promise<{ entry: JournalEntry; envelope: DsseEnvelope }> {
  return appendSigned(journal, key, "verdict", verdict.subject.digest, (head) => buildStatement(verdict, { ...context, journal: head }));
}
