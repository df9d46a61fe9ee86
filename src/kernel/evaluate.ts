import { APPROVAL_CLAIM, CHANGE_CLAIM } from "./claims.js";
import { canonicalJson, sha256Hex, subjectDigest } from "./subject.js";
import type { Approver, ClaimResult, Detail, Evidence, FailClass, Gate, GateClaim, Subject, Verdict } from "./types.js";

/**
 * The verdict as a pure function of its inputs (DESIGN.md, invariant 1): no I/O, no clock, no
 * randomness. Evidence order does not matter; the same inputs give byte-identical output.
 */
export function evaluate(gate: Gate, evidence: readonly Evidence[], subject: Subject, approver: Approver | null): Verdict {
  const digest = subjectDigest(subject);
  const claims: ClaimResult[] = [];
  if (landingTree(subject) === subject.baseTree) claims.push(noChange(subject));
  for (const claim of gate.claims) {
    claims.push(judgeClaim(claim, evidence.filter((e) => e.claim === claim.name), digest));
  }

  const failing = claims.filter((c) => c.status !== "pass");
  const reasons = failing.map((c) => `${c.name}: ${c.reason}`);
  const missing = failing.filter((c) => c.status === "missing").map((c) => c.name);
  const bound = { ...subject, digest };

  if (failing.length > 0) {
    const cls: FailClass = failing.some((c) => c.class === "unsafe") ? "unsafe" : "incomplete";
    return { verdict: "FAIL", class: cls, subject: bound, claims, missing, reasons };
  }
  if (approver !== null && approver.sha === subject.head) {
    claims.push({
      name: APPROVAL_CLAIM, status: "pass", cause: "passed", class: null,
      reason: `approved by ${approver.login} on ${subject.head}`, details: [], evidence: [],
    });
    return { verdict: "PASS", class: null, subject: bound, claims, missing: [], reasons: [] };
  }
  const waiting = `waiting for an independent human approval of ${subject.head.slice(0, 7)}`;
  return { verdict: "CANDIDATE", class: null, subject: bound, claims, missing: [APPROVAL_CLAIM], reasons: [waiting] };
}

function judgeClaim(claim: GateClaim, all: readonly Evidence[], digest: string): ClaimResult {
  const forSubject = sortByCanonical(all.filter((e) => e.subject === digest));
  const bound = forSubject.filter((e) => e.outcome !== "absent");
  if (bound.length === 0 && forSubject.length > 0) {
    const absent = forSubject.map((e) => e.reason);
    return {
      name: claim.name, status: "missing", cause: "absent", class: "incomplete",
      reason: unique(absent).join("; "), details: mergeDetails(forSubject), evidence: forSubject.map(evidenceDigest).sort(),
    };
  }
  if (bound.length === 0) {
    // Absence blocks (invariant 2); evidence for another subject counts as none (invariant 3).
    const stale = all.length > 0;
    return {
      name: claim.name, status: "missing", cause: stale ? "stale" : "absent", class: "incomplete",
      reason: stale ? "evidence was measured for another subject, so none holds for this one" : "no evidence",
      details: [], evidence: [],
    };
  }
  const fails = bound.filter((e) => e.outcome === "fail");
  const passes = bound.filter((e) => e.outcome === "pass");
  const evidence = bound.map(evidenceDigest).sort();
  if (fails.length === 0) {
    return {
      name: claim.name, status: "pass", cause: "passed", class: null,
      reason: unique(passes.map((e) => e.reason)).join("; "), details: mergeDetails(passes), evidence,
    };
  }
  const unsafe = claim.unsafe || fails.some((e) => e.unsafe === true);
  // A pass never outvotes a fail: disagreeing evidence is a failure of its own.
  const contradicted = passes.length > 0;
  const reason = unique(fails.map((e) => e.reason)).join("; ");
  return {
    name: claim.name, status: "fail", cause: contradicted ? "contradicted" : "failed",
    class: unsafe ? "unsafe" : "incomplete",
    reason: contradicted ? `evidence disagrees: ${reason}` : reason,
    details: mergeDetails(fails), evidence,
  };
}

/** What the base would hold after the change lands: the merged tree when the subject records one. */
function landingTree(subject: Subject): string | null {
  return subject.mergedTree === undefined ? subject.headTree : subject.mergedTree;
}

function noChange(subject: Subject): ClaimResult {
  const head = subject.head.slice(0, 7);
  const base = subject.base.slice(0, 7);
  const reason = subject.mergedTree === undefined || subject.headTree === subject.baseTree
    ? `no change to judge: head ${head} has the same tree as base ${base}`
    : `no change to judge: merging head ${head} into base ${base} changes nothing (the base already has this change)`;
  return { name: CHANGE_CLAIM, status: "fail", cause: "failed", class: "incomplete", reason, details: [], evidence: [] };
}

export function evidenceDigest(e: Evidence): string {
  return `sha256:${sha256Hex(canonicalJson(e))}`;
}

function sortByCanonical(items: readonly Evidence[]): Evidence[] {
  return items
    .map((e) => ({ e, key: canonicalJson(e) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ e }) => e);
}

function mergeDetails(items: readonly Evidence[]): Detail[] {
  const seen = new Set<string>();
  const out: Detail[] = [];
  for (const e of items) {
    for (const d of e.details) {
      const key = canonicalJson(d);
      if (!seen.has(key)) {
        seen.add(key);
        out.push({ ...d });
      }
    }
  }
  return out;
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
