import { describe, expect, it } from "vitest";
import { frozenClaim, safetyClaim, scopeClaim } from "../../../src/measure/diff/index.js";
import { added, context, lines, modified, policy, renamed, task } from "./builders.js";

// The negative of every rule at once: an honest change, as an agent should make it, passes all three.
describe("an honest change", () => {
  const ctx = context(
    [modified("src/calc.py"), added("src/parse.py"), renamed("src/util.py", "src/helpers.py"), added("tests/test_parse.py")],
    {
      policy: policy({ scope: { allow: ["src/**"], deny: ["src/vendor/**"] } }),
      task: task({ scope: ["src/**"] }),
      added: [lines("src/parse.py", "def parse(text):", "    return int(text)"), lines("tests/test_parse.py", "def test_parse():", "    assert parse('1') == 1")],
    },
  );

  it("passes diff.frozen, diff.scope and diff.safety, each bound to the subject", () => {
    const evidence = [frozenClaim(ctx), scopeClaim(ctx), safetyClaim(ctx)];
    expect(evidence.map((e) => [e.claim, e.outcome, e.subject])).toEqual([
      ["diff.frozen", "pass", "sha256:subject"], ["diff.scope", "pass", "sha256:subject"], ["diff.safety", "pass", "sha256:subject"],
    ]);
    expect(evidence.map((e) => e.reason)).toEqual([
      "4 changed paths, none frozen; 1 new test file is a red-then-green target",
      "4 changed paths within scope (allow src/**; task calc-1: src/**); not judged here: 1 new test file",
      expect.stringMatching(/^4 changed paths: no submodule/),
    ]);
  });

  it("gives the same evidence every time (pure functions)", () => {
    expect(JSON.stringify([frozenClaim(ctx), scopeClaim(ctx), safetyClaim(ctx)]))
      .toBe(JSON.stringify([frozenClaim(ctx), scopeClaim(ctx), safetyClaim(ctx)]));
  });
});

describe("long lists", () => {
  it("name five findings in the reason and count the rest; the details keep them all", () => {
    const facts = ["a", "b", "c", "d", "e", "f", "g"].map((d) => added(`${d}/conftest.py`));
    const evidence = frozenClaim(context(facts));
    expect(evidence.reason).toBe("7 frozen paths changed: a/conftest.py (added), b/conftest.py (added), c/conftest.py (added), "
      + "d/conftest.py (added), e/conftest.py (added) and 2 more");
    expect(evidence.details).toHaveLength(7);
  });
});
