// The override statement (issue 23): a maintainer who had no hand in the change says the gate's
// measured verdict on one head is wrong, and why. Signed and journalled beside verdicts and
// approvals; it never replaces the verdict it overrides, which stays in the journal as measured.
import type { ClaimResult, FailClass, VerdictName } from "../kernel/index.js";
import { isRecord, STATEMENT_TYPE, type InTotoStatement, type JournalPosition } from "./statement.js";

export const OVERRIDE_PREDICATE_TYPE = "https://ranex.dev/override/v1";

/** The verdict an override stands against, as it was signed: its entry, name, class and every claim that did not hold. */
export interface OverriddenVerdict {
  /** The journal entry of the verdict. */
  entry: string;
  verdict: VerdictName;
  class: FailClass | null;
  /** The verdict's subject digest (`sha256:…`): what was measured. */
  digest: string;
  reasons: string[];
  /** The claims whose status is `fail` or `missing`, in full. */
  failing: ClaimResult[];
}

export interface OverridePredicate {
  repository: string;
  pullRequest: number;
  /** The head commit the override applies to, and only it. */
  head: string;
  /** The base tip the overridden verdict was measured on: a moved base ends the override. */
  base: string;
  /** Who overrode, and the role GitHub gave them (`maintain`, `admin`). */
  by: string;
  role: string;
  reason: string;
  overrides: OverriddenVerdict;
  time: string;
  journal: JournalPosition | null;
}

export function buildOverrideStatement(predicate: Omit<OverridePredicate, "journal">, journal: JournalPosition | null): InTotoStatement<OverridePredicate> {
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: `${predicate.repository}@refs/pull/${predicate.pullRequest}/head`, digest: { gitCommit: predicate.head } }],
    predicateType: OVERRIDE_PREDICATE_TYPE,
    predicate: { ...predicate, journal },
  };
}

/** The override predicate of a statement, when it is one and well formed; null otherwise. */
export function overridePredicateOf(statement: InTotoStatement | null): OverridePredicate | null {
  if (statement === null || statement.predicateType !== OVERRIDE_PREDICATE_TYPE || !isRecord(statement.predicate)) return null;
  const p = statement.predicate;
  const o = p.overrides;
  const strings = [p.repository, p.head, p.base, p.by, p.role, p.reason, p.time];
  if (strings.some((s) => typeof s !== "string") || typeof p.pullRequest !== "number" || !isRecord(o)) return null;
  if (typeof o.entry !== "string" || typeof o.verdict !== "string" || !Array.isArray(o.failing)) return null;
  return p as unknown as OverridePredicate;
}
