import { describe, expect, it } from "vitest";
import { buildStatement, journalPositionOf, STATEMENT_TYPE, VERDICT_PREDICATE_TYPE } from "../../src/attest/index.js";
import { makeVerdictFixture } from "./verdict-fixture.js";

describe("verdict statement", () => {
  it("binds the head commit and carries the whole verdict, subject, evidence, version, time and journal head", () => {
    const fixture = makeVerdictFixture("fail");
    const statement = buildStatement(fixture.verdict, {
      repository: "acme/widgets", ref: null, gateVersion: "1.2.3", time: "2026-02-03T04:05:06.000Z",
      journal: null, evidence: [...fixture.evidence, ...fixture.evidence],
    });
    expect(statement._type).toBe(STATEMENT_TYPE);
    expect(statement.predicateType).toBe(VERDICT_PREDICATE_TYPE);
    expect(statement.subject).toEqual([{ name: "acme/widgets", digest: { gitCommit: fixture.head } }]);
    const p = statement.predicate;
    expect(p.verdict).toBe("FAIL");
    expect(p.class).toBe("incomplete");
    expect(p.claims.map((c) => [c.name, c.status, c.reason])).toEqual([["diff.scope", "fail", "src/a.ts is out of scope"]]);
    expect(p.subject).toEqual(fixture.verdict.subject);
    expect(p.subject.base).toBe(fixture.base);
    expect(p.subject.mergeBase).toBe(fixture.base);
    expect(p.subject.mergedTree).toBe(fixture.verdict.subject.headTree);
    expect(p.evidence).toEqual(fixture.evidence);
    expect(p.gateVersion).toBe("1.2.3");
    expect(p.time).toBe("2026-02-03T04:05:06.000Z");
    expect(journalPositionOf(statement)).toBeNull();
  });

  it("names the PR ref and the journal head it extends", () => {
    const fixture = makeVerdictFixture();
    const statement = buildStatement(fixture.verdict, {
      repository: "acme/widgets", ref: "refs/pull/9/head", gateVersion: "1", time: "t",
      journal: { sequence: 4, hash: "b".repeat(64) }, evidence: fixture.evidence,
    });
    expect(statement.subject[0]!.name).toBe("acme/widgets@refs/pull/9/head");
    expect(statement.predicate.verdict).toBe("CANDIDATE");
    expect(journalPositionOf(statement)).toEqual({ sequence: 4, hash: "b".repeat(64) });
  });
});
