// Reads what the pages show from the journal: one verdict with its neighbours, and one repository's
// entries newest first. The journal is one chain for every repository, so a repository's listing is
// a scan of the chain: fine for the embedded journal, and bounded by MAX_SCAN at scale.
import { overridePredicateOf, statementOf, type DsseEnvelope, type InTotoStatement, type VerdictPredicate } from "../attest/index.js";
import type { Journal, JournalEntry } from "../journal/index.js";

export interface Neighbour {
  sequence: number;
  hash: string;
  kind: string;
  /** Set when the neighbour is a verdict of the same repository: only then may this page link to it. */
  id: string | null;
}

export interface VerdictEntry {
  entry: JournalEntry;
  envelope: DsseEnvelope;
  statement: InTotoStatement<VerdictPredicate>;
  repository: string;
}

export interface ListedEntry {
  entry: JournalEntry;
  predicate: Record<string, unknown>;
  repository: string;
}

const MAX_SCAN = 100_000;

/** A signed `approval` entry that completes a CANDIDATE (issue 6): who approved, by which review. */
export interface ApprovalSeen {
  sequence: number;
  envelope: DsseEnvelope;
  approvers: { login: string; reviewId: number }[];
  time: string;
}

/**
 * The latest approval entry naming this verdict as the CANDIDATE it completes. Approvals are
 * appended after their verdict, so only the chain after it is read (bounded like every scan here).
 */
export async function approvalOf(journal: Journal, verdict: JournalEntry): Promise<ApprovalSeen | null> {
  let found: ApprovalSeen | null = null;
  let read = 0;
  for await (const entry of journal.entries({ after: verdict.sequence })) {
    if (++read > MAX_SCAN) break;
    if (entry.kind !== "approval") continue;
    const predicate = statementOf(entry.payload)?.predicate;
    if (!isRecord(predicate) || predicate.judgeEntry !== verdict.id || !Array.isArray(predicate.approvers)) continue;
    const approvers = predicate.approvers
      .filter((a): a is { login: string; reviewId: number } => isRecord(a) && typeof a.login === "string" && typeof a.reviewId === "number")
      .map((a) => ({ login: a.login, reviewId: a.reviewId }));
    found = { sequence: entry.sequence, envelope: entry.payload as DsseEnvelope, approvers, time: typeof predicate.time === "string" ? predicate.time : "" };
  }
  return found;
}

/** A signed `override` entry of a FAIL (issue 23): who, why, when. */
export interface OverrideSeen {
  sequence: number;
  envelope: DsseEnvelope;
  by: string;
  role: string;
  reason: string;
  time: string;
}

/** The latest override entry naming this verdict; overrides come after their verdict, so only the chain after it is read. */
export async function overrideOf(journal: Journal, verdict: JournalEntry): Promise<OverrideSeen | null> {
  let found: OverrideSeen | null = null;
  let read = 0;
  for await (const entry of journal.entries({ after: verdict.sequence })) {
    if (++read > MAX_SCAN) break;
    if (entry.kind !== "override") continue;
    const o = overridePredicateOf(statementOf(entry.payload));
    if (o === null || o.overrides.entry !== verdict.id) continue;
    found = { sequence: entry.sequence, envelope: entry.payload as DsseEnvelope, by: o.by, role: o.role, reason: o.reason, time: o.time };
  }
  return found;
}

/** The entry when it is a verdict whose payload is a DSSE envelope around a verdict statement. */
export function verdictEntry(entry: JournalEntry): VerdictEntry | null {
  if (entry.kind !== "verdict") return null;
  const statement = statementOf(entry.payload);
  if (statement === null || !isRecord(statement.predicate)) return null;
  const predicate = statement.predicate as unknown as VerdictPredicate;
  if (!Array.isArray(predicate.claims) || !isRecord(predicate.subject)) return null;
  return { entry, envelope: entry.payload as DsseEnvelope, statement: statement as InTotoStatement<VerdictPredicate>, repository: repositoryOf(statement) };
}

/** The repository an entry is about, from its statement; null when it names none. */
export function repositoryOf(statement: InTotoStatement): string {
  const predicate = isRecord(statement.predicate) ? statement.predicate : {};
  if (isRecord(predicate.subject) && typeof predicate.subject.repository === "string") return predicate.subject.repository;
  if (typeof predicate.repository === "string") return predicate.repository;
  const name = statement.subject[0]?.name ?? "";
  const at = name.lastIndexOf("@refs/");
  return at === -1 ? name : name.slice(0, at);
}

export async function neighbours(journal: Journal, entry: JournalEntry, repository: string): Promise<{ previous: Neighbour | null; next: Neighbour | null }> {
  const previous = entry.sequence > 1 ? await first(journal.entries({ after: entry.sequence - 2, limit: 1 })) : null;
  const next = await first(journal.entries({ after: entry.sequence, limit: 1 }));
  return { previous: previous && neighbourOf(previous, repository), next: next && neighbourOf(next, repository) };
}

function neighbourOf(entry: JournalEntry, repository: string): Neighbour {
  const verdict = verdictEntry(entry);
  return { sequence: entry.sequence, hash: entry.hash, kind: entry.kind, id: verdict !== null && verdict.repository === repository ? entry.id : null };
}

/** One page of a repository's entries, newest first, and whether there is another page after it. */
export async function repositoryEntries(journal: Journal, repository: string, page: number, perPage: number): Promise<{ entries: ListedEntry[]; more: boolean; total: number }> {
  const all: ListedEntry[] = [];
  // Newest first means the end of the chain: scan at most its last MAX_SCAN entries.
  const head = await journal.head();
  for await (const entry of journal.entries({ after: Math.max(0, (head?.sequence ?? 0) - MAX_SCAN) })) {
    const statement = statementOf(entry.payload);
    if (statement === null || repositoryOf(statement) !== repository) continue;
    all.push({ entry, predicate: isRecord(statement.predicate) ? statement.predicate : {}, repository });
  }
  all.reverse();
  const start = (page - 1) * perPage;
  return { entries: all.slice(start, start + perPage), more: all.length > start + perPage, total: all.length };
}

async function first<T>(items: AsyncIterable<T>): Promise<T | null> {
  for await (const item of items) return item;
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
