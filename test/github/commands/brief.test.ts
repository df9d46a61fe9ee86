import { describe, expect, it } from "vitest";
import { buildStatement, generateKey, signStatement } from "../../../src/attest/index.js";
import { briefForCheckRun } from "../../../src/github/commands/brief.js";
import { makeVerdictFixture } from "../../attest/verdict-fixture.js";

// `/ranex explain` reads the brief of a check run's journal entry; the brief itself is tested in
// test/judge/reviewer-brief.test.ts.

describe("the brief of a check run", () => {
  it("comes from the journal entry the check run names, and says so when that cannot be read", async () => {
    const { verdict } = makeVerdictFixture();
    const good = await signStatement(buildStatement(verdict, { repository: "acme/widgets", ref: null, gateVersion: "0", time: "2026-01-01T00:00:00Z", journal: null, evidence: [] }), await generateKey());
    expect(await briefForCheckRun(async () => ({ payload: good }), "id")).toContain("Reviewer's brief");
    expect(await briefForCheckRun(async () => null, "id")).toContain("journal entry `id` is not in this gate's journal");
    expect(await briefForCheckRun(async () => { throw new Error("disk gone"); }, "id")).toContain("could not be read from the journal: disk gone");
    expect(await briefForCheckRun(undefined, "id")).toBeNull();
  });
});
