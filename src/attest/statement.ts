import type { ClaimResult, FailClass, Subject, Verdict, VerdictName } from "../kernel/index.js";

export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
/** Our own namespace: the predicate's shape is ours, versioned in the URI. */
export const VERDICT_PREDICATE_TYPE = "https://ranex.dev/verdict/v1";

export interface JournalPosition {
  sequence: number;
  hash: string;
}

export interface VerdictPredicate {
  verdict: VerdictName;
  class: FailClass | null;
  claims: ClaimResult[];
  missing: string[];
  reasons: string[];
  /**
   * Everything the verdict was judged on: base tip, merge base (where the diff claims started),
   * head, merged tree (what the tests ran on; null when the merge conflicts), policy, task, sandbox
   * (docs/verify.md). Verdicts signed before issue 12 lack mergeBase and mergedTree.
   */
  subject: Subject & { digest: string };
  /** `sha256:<hex>` digests of every piece of evidence measured, sorted. */
  evidence: string[];
  gateVersion: string;
  /** ISO 8601, passed in by the caller: signing adds no clock of its own. */
  time: string;
  /** The journal head this verdict extends (null for the first entry): anchors the journal against truncation. */
  journal: JournalPosition | null;
  /**
   * The agent whose pull request this is (issue 23): its author login, or `label:<name>` when a label
   * marked it. Absent in verdicts signed before, and from the CLI.
   */
  agent?: string;
  /** When the gate was asked to judge this head (the push's webhook, or a re-judgment); absent as above. */
  queuedAt?: string;
}

export interface StatementSubject {
  name: string;
  digest: Record<string, string>;
}

export interface InTotoStatement<P = unknown> {
  _type: typeof STATEMENT_TYPE;
  subject: StatementSubject[];
  predicateType: string;
  predicate: P;
}

export interface StatementContext {
  repository: string;
  /** The PR ref (`refs/pull/12/head`) when known; it becomes part of the subject's name. */
  ref: string | null;
  gateVersion: string;
  time: string;
  journal: JournalPosition | null;
  evidence: string[];
  agent?: string;
  queuedAt?: string;
}

export function buildStatement(verdict: Verdict, context: StatementContext): InTotoStatement<VerdictPredicate> {
  const name = context.ref === null ? context.repository : `${context.repository}@${context.ref}`;
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name, digest: { gitCommit: verdict.subject.head } }],
    predicateType: VERDICT_PREDICATE_TYPE,
    predicate: {
      verdict: verdict.verdict,
      class: verdict.class,
      claims: verdict.claims,
      missing: verdict.missing,
      reasons: verdict.reasons,
      subject: verdict.subject,
      evidence: [...new Set(context.evidence)].sort(),
      gateVersion: context.gateVersion,
      time: context.time,
      journal: context.journal,
      ...(context.agent === undefined ? {} : { agent: context.agent }),
      ...(context.queuedAt === undefined ? {} : { queuedAt: context.queuedAt }),
    },
  };
}

/** Checks the parts of a statement every reader relies on; returns a reason, or null when it is well formed. */
export function statementProblem(value: unknown): string | null {
  if (!isRecord(value)) return "the payload is not a JSON object";
  if (value._type !== STATEMENT_TYPE) return `the payload is not an in-toto Statement v1 (_type ${JSON.stringify(value._type)})`;
  if (typeof value.predicateType !== "string") return "the statement has no predicateType";
  if (!Array.isArray(value.subject) || value.subject.length === 0) return "the statement names no subject";
  for (const subject of value.subject) {
    if (!isRecord(subject) || typeof subject.name !== "string" || !isRecord(subject.digest)) return "a statement subject has no name or digest";
    if (Object.values(subject.digest).some((d) => typeof d !== "string")) return "a statement subject digest is not a string";
  }
  return null;
}

/**
 * The journal position a statement says it extends: `predicate.journal`, whatever the predicate type
 * (verdicts, approvals and escalations all carry one). Null for the first entry, "absent" when the
 * statement carries no well-formed position.
 */
export function journalPositionOf(statement: InTotoStatement): JournalPosition | null | "absent" {
  if (!isRecord(statement.predicate) || !("journal" in statement.predicate)) return "absent";
  const position = statement.predicate.journal;
  if (position === null) return null;
  if (!isRecord(position) || !Number.isSafeInteger(position.sequence) || typeof position.hash !== "string") return "absent";
  return { sequence: position.sequence as number, hash: position.hash };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
