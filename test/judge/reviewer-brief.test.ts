import { describe, expect, it } from "vitest";
import { buildStatement, generateKey, signStatement } from "../../src/attest/index.js";
import { briefOfEntry, renderBrief, reviewerBrief } from "../../src/judge/reviewer-brief.js";
import type { ClaimResult, Verdict } from "../../src/kernel/index.js";
import { makeVerdictFixture } from "../attest/verdict-fixture.js";

const fixture = makeVerdictFixture();

function claim(name: string, details: ClaimResult["details"], status: ClaimResult["status"] = "pass"): ClaimResult {
  return { name, status, cause: status === "fail" ? "failed" : "passed", class: null, reason: "r", details, evidence: [] };
}

function candidate(claims: ClaimResult[], task: string | null = "sha256:" + "1".repeat(64)): Verdict {
  const replaced = new Set(claims.map((c) => c.name));
  return { ...fixture.verdict, subject: { ...fixture.verdict.subject, task }, claims: [...fixture.verdict.claims.filter((c) => !replaced.has(c.name)), ...claims] };
}

describe("the reviewer's brief", () => {
  it("lists the agent's own tests, out-of-task files, and the later claims' findings when they are measured", () => {
    const brief = reviewerBrief(candidate([
      claim("tests.red_green", [{ kind: "self-authored", path: "tests/test_mul.py", message: "written by the agent" }, { kind: "ambiguous", message: "x" }]),
      claim("diff.scope", [{ kind: "outside-task", path: "docs/usage.md", message: "docs/usage.md: outside the task's scope" }]),
      claim("diff.needed", [{ kind: "unneeded", path: "calc.py", line: 12, message: "lines 12-14: no test fails without it" }]),
      claim("tests.stable", []),
    ]));
    expect(brief.selfAuthoredTests).toEqual({ status: "listed", items: [{ path: "tests/test_mul.py", text: "written by the agent" }] });
    expect(brief.outsideTaskScope).toEqual({ status: "listed", items: [{ path: "docs/usage.md", text: "docs/usage.md: outside the task's scope" }] });
    expect(brief.unneededHunks).toEqual({ status: "listed", items: [{ path: "calc.py", line: 12, text: "lines 12-14: no test fails without it" }] });
    expect(brief.flakyTargets).toMatchObject({ status: "none" });
    expect(brief.baseAhead).toMatchObject({ status: "not-measured" });
    const text = renderBrief(brief);
    expect(text).toContain(`### Reviewer's brief for \`${fixture.head.slice(0, 7)}\``);
    expect(text).toContain("- `calc.py:12` lines 12-14: no test fails without it");
    expect(text).toContain("**Flaky targets:** none: every target kept its outcome on every repeat.");
  });

  it("says 'not measured', never 'none', for what the gate did not measure", () => {
    const brief = reviewerBrief(candidate([], null));
    expect(brief.unneededHunks).toMatchObject({ status: "not-measured", note: expect.stringContaining("`diff.needed` is not in the policy's `require`") });
    expect(brief.flakyTargets).toMatchObject({ status: "not-measured" });
    expect(brief.outsideTaskScope).toMatchObject({ status: "not-measured", note: expect.stringContaining("names no task") });
    expect(brief.selfAuthoredTests).toEqual({ status: "none", note: "the agent changed no test file" });
    expect(renderBrief(brief)).toContain("**Changed hunks no test needs:** not measured:");
  });

  it("says what bound the change's files: the task's scope list, the policy's alone, or no scope claim", () => {
    const task = claim("diff.scope", [{ kind: "task-scope", message: "task \"div\" scope: \"src/**\"" }]);
    expect(reviewerBrief(candidate([task])).outsideTaskScope).toEqual({ status: "none", note: "every changed file is inside the task's scope list (task \"div\" scope: \"src/**\")" });
    expect(reviewerBrief(candidate([claim("diff.scope", [])])).outsideTaskScope).toMatchObject({ status: "none", note: expect.stringContaining("the task has no scope list of its own") });
    const noScope = { ...candidate([]), claims: fixture.verdict.claims.filter((c) => c.name !== "diff.scope") };
    expect(reviewerBrief(noScope).outsideTaskScope).toMatchObject({ status: "not-measured", note: expect.stringContaining("`diff.scope` is not in the policy's `require`") });
  });

  it("lists the base tip's commits the head lacks, says 'none' when the head contains the tip, 'not measured' for older verdicts", () => {
    const ahead = reviewerBrief(candidate([claim("tests.regression", [
      { kind: "regressed", message: "not this" },
      { kind: "base-ahead", message: "on the base tip, not in the head: abc1234 stats: thanks @alice (changes src/stats.py)" },
      { kind: "base-ahead", message: "and 3 more commits on the base tip, not in the head (4 in all: git log 1111111..2222222)" },
    ])]));
    expect(ahead.baseAhead).toEqual({ status: "listed", items: [
      { text: "abc1234 stats: thanks @alice (changes src/stats.py)" },
      { text: "and 3 more commits on the base tip, not in the head (4 in all: git log 1111111..2222222)" },
    ] });
    const text = renderBrief(ahead);
    expect(text).toContain("**What the base branch's tip has that the head has not (the tip it was judged against):**\n\n- abc1234 stats: thanks @\u200balice (changes src/stats.py)\n- and 3 more");
    expect(text).not.toContain("@alice");

    const contained = reviewerBrief(candidate([claim("diff.scope", [{ kind: "base-contained", message: "head 2222222 contains base tip 1111111: …" }])]));
    expect(contained.baseAhead).toEqual({ status: "none", note: "the head contains the base tip it was judged against" });
    expect(renderBrief(contained)).toContain("**What the base branch's tip has that the head has not (the tip it was judged against):** none: the head contains the base tip it was judged against.");
    expect(reviewerBrief(candidate([])).baseAhead).toMatchObject({ status: "not-measured", note: expect.stringContaining("did not compare the head with the base tip") });
  });

  it("is read from the signed journal entry of a CANDIDATE, and only a CANDIDATE", async () => {
    const key = await generateKey();
    const sign = (verdict: Verdict) => signStatement(buildStatement(verdict, { repository: "acme/widgets", ref: null, gateVersion: "0", time: "2026-01-01T00:00:00Z", journal: null, evidence: [] }), key);
    const good = await sign(candidate([claim("tests.red_green", [{ kind: "self-authored", path: "t.py", message: "m" }])]));
    expect(briefOfEntry({ payload: good })).toContain("- `t.py` m");
    expect(briefOfEntry({ payload: await sign(makeVerdictFixture("fail").verdict) })).toBeNull();
    expect(briefOfEntry({ payload: { not: "an envelope" } })).toBeNull();
  });
});
