import { describe, expect, it } from "vitest";
import { configurationFailure, GateError, makeGate, POLICY_CLAIM, subjectDigest } from "../../src/kernel/index.js";
import { SUBJECT } from "./fixtures.js";

describe("makeGate", () => {
  it("refuses a gate that requires nothing, saying why", () => {
    expect(() => makeGate([])).toThrow(GateError);
    expect(() => makeGate([])).toThrow(/requires no claim, so the gate could never block a change/);
  });

  it("refuses unknown claims and names them", () => {
    expect(() => makeGate(["diff.scope", "tests.everything"])).toThrow(new GateError("unknown claim in require: tests.everything"));
    expect(() => makeGate(["x", "y"])).toThrow("unknown claims in require: x, y");
    // The approval is the human's, never a claim a policy can make the judge measure.
    expect(() => makeGate(["approval.independent"])).toThrow(GateError);
    expect(() => makeGate(["check:has space"])).toThrow(GateError);
  });

  it("keeps order, drops duplicates, and marks the unsafe kinds", () => {
    expect(makeGate(["secrets", "diff.scope", "secrets", "check:lint", "diff.frozen"]).claims).toEqual([
      { name: "secrets", unsafe: true },
      { name: "diff.scope", unsafe: false },
      { name: "check:lint", unsafe: false },
      { name: "diff.frozen", unsafe: true },
    ]);
  });
});

describe("configurationFailure", () => {
  it("is a FAIL on policy.valid with the reason and details, bound to the subject", () => {
    const details = [{ message: ".github/ranex.yml:3: tests.fooo: unknown key 'fooo'", path: ".github/ranex.yml", line: 3, kind: "policy" }];
    const v = configurationFailure(SUBJECT, "invalid .github/ranex.yml", details);
    expect(v).toMatchObject({ verdict: "FAIL", class: "incomplete", missing: [], reasons: ["policy.valid: invalid .github/ranex.yml"] });
    expect(v.subject).toEqual({ ...SUBJECT, digest: subjectDigest(SUBJECT) });
    expect(v.claims).toEqual([{
      name: POLICY_CLAIM, status: "fail", cause: "failed", class: "incomplete", reason: "invalid .github/ranex.yml", details, evidence: [],
    }]);
    // The verdict holds copies: changing the caller's details later cannot rewrite it.
    details[0]!.message = "changed";
    expect(v.claims[0]?.details[0]?.message).toMatch(/unknown key/);
  });
});
