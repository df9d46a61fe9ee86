import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate, makeGate, type Evidence } from "../../src/kernel/index.js";
import { DIGEST, SUBJECT } from "./fixtures.js";

// Invariant 1: the verdict is a pure function of its inputs. Evidence arrives in whatever order
// the measurements finished, so any permutation must give the very same bytes.

const gate = makeGate(["diff.frozen", "diff.scope", "secrets", "tests.regression", "check:lint"]);

const detail = fc.record(
  { message: fc.constantFrom("a", "b", "changed", "ünïcode"), path: fc.constantFrom("src/a.ts", "tests/x.py"), line: fc.integer({ min: 1, max: 5 }), kind: fc.constantFrom("modified", "symlink") },
  { requiredKeys: ["message"] },
);

const evidence: fc.Arbitrary<Evidence> = fc.record(
  {
    claim: fc.constantFrom("diff.frozen", "diff.scope", "secrets", "tests.regression", "check:lint", "diff.safety"),
    subject: fc.constantFrom(DIGEST, DIGEST, DIGEST, "sha256:other"),
    outcome: fc.constantFrom("pass", "fail", "absent") as fc.Arbitrary<Evidence["outcome"]>,
    reason: fc.constantFrom("ok", "broken", "no targets", "timeout after 600 s"),
    details: fc.array(detail, { maxLength: 3 }),
    unsafe: fc.boolean(),
    meta: fc.dictionary(fc.constantFrom("ms", "exit", "digest"), fc.oneof(fc.integer(), fc.string({ maxLength: 4 }))),
  },
  { requiredKeys: ["claim", "subject", "outcome", "reason", "details"] },
);

const approver = fc.option(fc.record({ login: fc.constant("alice"), sha: fc.constantFrom(SUBJECT.head, SUBJECT.base) }));

describe("determinism", () => {
  it("any permutation of the same evidence gives a byte-identical verdict", () => {
    const scenario = fc.array(evidence, { maxLength: 12 }).chain((list) =>
      fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }), approver));
    fc.assert(fc.property(scenario, ([original, permuted, who]) => {
      const before = JSON.stringify(original);
      const a = JSON.stringify(evaluate(gate, original, SUBJECT, who));
      const b = JSON.stringify(evaluate(gate, permuted, SUBJECT, who));
      expect(b).toBe(a);
      // Pure also means the inputs come back untouched.
      expect(JSON.stringify(original)).toBe(before);
    }), { numRuns: 300 });
  });

  it("copies of the evidence give the same verdict as the originals", () => {
    fc.assert(fc.property(fc.array(evidence, { maxLength: 8 }), (list) => {
      const copies = JSON.parse(JSON.stringify(list)) as Evidence[];
      expect(JSON.stringify(evaluate(gate, copies, SUBJECT, null))).toBe(JSON.stringify(evaluate(gate, list, SUBJECT, null)));
    }), { numRuns: 100 });
  });
});
