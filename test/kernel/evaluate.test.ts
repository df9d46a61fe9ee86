import { describe, expect, it } from "vitest";
import { APPROVAL_CLAIM, CHANGE_CLAIM, evaluate, makeGate, subjectDigest, type Subject } from "../../src/kernel/index.js";
import { DIGEST, ev, SUBJECT } from "./fixtures.js";

const gate = makeGate(["diff.scope", "tests.regression"]);
const allPass = [ev("diff.scope", "pass"), ev("tests.regression", "pass")];

describe("absence blocks", () => {
  it("a required claim without evidence is missing, cause absent, and the verdict is FAIL", () => {
    const v = evaluate(gate, [ev("diff.scope", "pass")], SUBJECT, null);
    expect(v.verdict).toBe("FAIL");
    expect(v.class).toBe("incomplete");
    expect(v.claims.find((c) => c.name === "tests.regression")).toMatchObject({ status: "missing", cause: "absent", reason: "no evidence" });
    expect(v.missing).toEqual(["tests.regression"]);
    expect(v.reasons).toEqual(["tests.regression: no evidence"]);
  });

  it("evidence with outcome absent keeps the claim missing but carries its reason", () => {
    const v = evaluate(gate, [ev("diff.scope", "pass"), ev("tests.regression", "absent", { reason: "no tests found" })], SUBJECT, null);
    expect(v.verdict).toBe("FAIL");
    expect(v.claims[1]).toMatchObject({ status: "missing", cause: "absent", reason: "no tests found" });
  });

  it("evidence for claims the gate does not require cannot stand in for a required one", () => {
    const v = evaluate(gate, [ev("diff.scope", "pass"), ev("secrets", "pass"), ev("check:lint", "pass")], SUBJECT, null);
    expect(v.verdict).toBe("FAIL");
    expect(v.missing).toEqual(["tests.regression"]);
  });
});

describe("subject binding", () => {
  const fields = ["repository", "head", "base", "policy", "task", "sandbox", "headTree", "baseTree", "mergeBase", "mergedTree"] as const;
  for (const field of fields) {
    it(`evidence measured for another ${field} is stale, so the claim is missing`, () => {
      const other: Subject = { ...SUBJECT, [field]: field === "policy" || field === "sandbox" ? `sha256:${"0".repeat(64)}` : "0".repeat(40) };
      const stale = subjectDigest(other);
      expect(stale).not.toBe(DIGEST);
      const v = evaluate(gate, [ev("diff.scope", "pass"), ev("tests.regression", "pass", { subject: stale })], SUBJECT, null);
      expect(v.verdict).toBe("FAIL");
      expect(v.claims.find((c) => c.name === "tests.regression")).toMatchObject({ status: "missing", cause: "stale", evidence: [] });
      expect(v.missing).toEqual(["tests.regression"]);
    });
  }

  it("a stale failure does not count either: the claim is missing, not failed", () => {
    const v = evaluate(gate, [ev("diff.scope", "pass"), ev("tests.regression", "fail", { subject: "sha256:other" })], SUBJECT, null);
    expect(v.claims[1]).toMatchObject({ status: "missing", cause: "stale" });
  });

  it("the verdict carries the subject and its digest", () => {
    expect(evaluate(gate, allPass, SUBJECT, null).subject).toEqual({ ...SUBJECT, digest: DIGEST });
  });
});

describe("contradicted evidence", () => {
  it("a pass and a fail for the same claim give fail, cause contradicted", () => {
    const v = evaluate(gate, [...allPass, ev("tests.regression", "fail", { reason: "test_x failed" })], SUBJECT, null);
    expect(v.verdict).toBe("FAIL");
    expect(v.claims[1]).toMatchObject({ status: "fail", cause: "contradicted", reason: "evidence disagrees: test_x failed" });
    expect(v.claims[1]?.evidence).toHaveLength(2);
  });

  it("no number of passes outvotes one fail", () => {
    const passes = Array.from({ length: 10 }, (_, i) => ev("tests.regression", "pass", { reason: `run ${i}` }));
    const v = evaluate(gate, [ev("diff.scope", "pass"), ...passes, ev("tests.regression", "fail")], SUBJECT, null);
    expect(v.claims[1]?.status).toBe("fail");
    expect(v.verdict).toBe("FAIL");
  });

  it("a fail alone has cause failed", () => {
    const v = evaluate(gate, [ev("diff.scope", "fail"), ev("tests.regression", "pass")], SUBJECT, null);
    expect(v.claims[0]).toMatchObject({ status: "fail", cause: "failed", class: "incomplete" });
  });
});

describe("failure class", () => {
  for (const claim of ["diff.frozen", "secrets", "sandbox.isolated"]) {
    it(`a failing ${claim} is unsafe`, () => {
      const g = makeGate([claim, "diff.scope"]);
      const v = evaluate(g, [ev(claim, "fail"), ev("diff.scope", "pass")], SUBJECT, null);
      expect(v.verdict).toBe("FAIL");
      expect(v.class).toBe("unsafe");
      expect(v.claims[0]?.class).toBe("unsafe");
    });
  }

  it("evidence marked unsafe makes another claim's failure unsafe", () => {
    const v = evaluate(gate, [ev("diff.scope", "pass"), ev("tests.regression", "fail", { unsafe: true })], SUBJECT, null);
    expect(v.class).toBe("unsafe");
    expect(v.claims[1]?.class).toBe("unsafe");
  });

  it("otherwise a failure, or a missing unsafe-kind claim, is incomplete", () => {
    expect(evaluate(gate, [ev("diff.scope", "fail"), ev("tests.regression", "fail")], SUBJECT, null).class).toBe("incomplete");
    const frozenMissing = evaluate(makeGate(["diff.frozen"]), [], SUBJECT, null);
    expect(frozenMissing).toMatchObject({ verdict: "FAIL", class: "incomplete" });
  });

  it("one unsafe failure makes the whole verdict unsafe, next to incomplete ones", () => {
    const g = makeGate(["diff.scope", "secrets"]);
    expect(evaluate(g, [ev("diff.scope", "fail"), ev("secrets", "fail")], SUBJECT, null).class).toBe("unsafe");
  });
});

describe("CANDIDATE and PASS", () => {
  it("all claims hold and no approver: CANDIDATE naming approval.independent as missing", () => {
    const v = evaluate(gate, allPass, SUBJECT, null);
    expect(v).toMatchObject({ verdict: "CANDIDATE", class: null, missing: [APPROVAL_CLAIM] });
    expect(v.claims.map((c) => [c.name, c.status, c.cause])).toEqual([["diff.scope", "pass", "passed"], ["tests.regression", "pass", "passed"]]);
    expect(v.reasons[0]).toMatch(/independent human approval of hhhhhhh/);
  });

  it("an approver on the head sha makes it PASS; on another sha it stays CANDIDATE", () => {
    const pass = evaluate(gate, allPass, SUBJECT, { login: "alice", sha: SUBJECT.head });
    expect(pass).toMatchObject({ verdict: "PASS", missing: [], reasons: [] });
    expect(pass.claims.at(-1)).toMatchObject({ name: APPROVAL_CLAIM, status: "pass", reason: `approved by alice on ${SUBJECT.head}` });
    const old = evaluate(gate, allPass, SUBJECT, { login: "alice", sha: SUBJECT.base });
    expect(old).toMatchObject({ verdict: "CANDIDATE", missing: [APPROVAL_CLAIM] });
  });

  it("an approver never rescues a FAIL", () => {
    const v = evaluate(gate, [ev("diff.scope", "pass")], SUBJECT, { login: "alice", sha: SUBJECT.head });
    expect(v.verdict).toBe("FAIL");
    expect(v.claims.some((c) => c.name === APPROVAL_CLAIM)).toBe(false);
  });
});

describe("no change to judge", () => {
  it("a head tree equal to the base tree is FAIL even when every claim passes", () => {
    const same = { ...SUBJECT, headTree: SUBJECT.baseTree };
    const digest = subjectDigest(same);
    const evidence = allPass.map((e) => ({ ...e, subject: digest }));
    const v = evaluate(gate, evidence, same, { login: "alice", sha: same.head });
    expect(v.verdict).toBe("FAIL");
    expect(v.claims[0]).toMatchObject({ name: CHANGE_CLAIM, status: "fail", cause: "failed" });
    expect(v.reasons[0]).toMatch(/^diff\.change: no change to judge: head hhhhhhh has the same tree as base bbbbbbb/);
  });

  it("a merge that changes nothing on the base is FAIL: the base already has the change", () => {
    const landed = { ...SUBJECT, mergeBase: "m".repeat(40), mergedTree: SUBJECT.baseTree };
    const digest = subjectDigest(landed);
    const v = evaluate(gate, allPass.map((e) => ({ ...e, subject: digest })), landed, null);
    expect(v.verdict).toBe("FAIL");
    expect(v.reasons[0]).toMatch(/^diff\.change: no change to judge: merging head hhhhhhh into base bbbbbbb changes nothing/);
  });

  it("a head behind its base whose merge changes the base is judged, though its tree differs from both", () => {
    const behind = { ...SUBJECT, mergeBase: "m".repeat(40), mergedTree: "3".repeat(40) };
    const digest = subjectDigest(behind);
    const v = evaluate(gate, allPass.map((e) => ({ ...e, subject: digest })), behind, null);
    expect(v.verdict).toBe("CANDIDATE");
  });

  it("a conflicting merge (no merged tree) is not taken for no change", () => {
    const conflicted = { ...SUBJECT, mergeBase: "m".repeat(40), mergedTree: null };
    const digest = subjectDigest(conflicted);
    const v = evaluate(gate, allPass.map((e) => ({ ...e, subject: digest })), conflicted, null);
    expect(v.claims.some((c) => c.name === CHANGE_CLAIM)).toBe(false);
  });
});
