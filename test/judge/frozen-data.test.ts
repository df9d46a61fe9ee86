import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import { judgedAsExpected } from "../helpers/expected-verdict.js";
import { claim, failing } from "../helpers/claims.js";
import { tempDir } from "../helpers/git-repo.js";

// Issues 19 and 22, "what the frozen tests rely on is frozen by default, whatever its path", with the
// real judge, the real sandbox and pytest (fixtures/repos/python-data.sh, init's policy unmodified).
// Each attack head was a CANDIDATE before: data the frozen tests read outside the conventional
// folders, a helper of a helper, and a plugin pytest.ini names by module were all free to change.

const dataDir = tempDir();

/** A head judged and held to its row of expected.json (the CLI suite leaves python-data's and node-data's rows to this one). */
function judged(head: string): Promise<Judgment> {
  return judgedAsExpected("python-data", head, dataDir);
}

async function expectCaught(head: string, message: string): Promise<void> {
  const judgment = await judged(head);
  expect(failing(judgment)).toEqual(["diff.frozen"]);
  expect(judgment.verdict.class).toBe("unsafe");
  expect(claim(judgment, "diff.frozen").details.map((d) => d.message)).toEqual([message]);
}

describe("test data the frozen tests read (src/shapes/examples)", () => {
  it("fails a head that rewrites cases the frozen test opened in the base run (the path is built at run time)", async () => {
    await expectCaught("rewrite-means", "src/shapes/examples/means.json: modified; test data of the frozen tests, frozen as of the base: "
      + "tests/test_average.py reads it (opened in the base run); release it with unfreeze: ['src/shapes/examples/means.json']");
  }, 300_000);

  it("fails a head that hides a regression by rewriting data the frozen test names literally (the code under test opens it)", async () => {
    await expectCaught("rewrite-totals", "src/shapes/examples/totals.csv: modified; test data of the frozen tests, frozen as of the base: "
      + "tests/test_stats.py reads it (named in its text); release it with unfreeze: ['src/shapes/examples/totals.csv']");
  }, 300_000);

  it("keeps CANDIDATEs for new data of a new test, for data only the code under test reads, and for released data", async () => {
    const [honest, added, units, released] = await Promise.all([judged("honest"), judged("new-data"), judged("fix-units"), judged("more-means-released")]);
    for (const judgment of [honest, added, units, released]) {
      expect(failing(judgment)).toEqual([]);
      expect(judgment.verdict.verdict).toBe("CANDIDATE");
    }
    expect(claim(honest, "diff.frozen").reason).toBe("1 changed path, none frozen; 2 test helpers of the frozen tests frozen too: src/shapes/_compare.py, "
      + "src/shapes/testing.py; 2 data files of the frozen tests frozen too: src/shapes/examples/means.json, src/shapes/examples/totals.csv; "
      + "1 named harness file of the frozen tests frozen too: src/shapes/pytest_plugin.py");
    // units.json is read by units.py only: the code under test's own data, not the tests'.
    expect(claim(units, "diff.frozen").details.map((d) => d.path)).not.toContain("src/shapes/tables/units.json");
    expect(claim(released, "diff.frozen").details.map((d) => d.path)).not.toContain("src/shapes/examples/means.json");
  }, 300_000);
});

describe("a helper of a helper (testing.py hands its comparison to _compare.py)", () => {
  it("fails a fix-less head that loosens the comparison no frozen file imports itself", async () => {
    await expectCaught("loosen-deep", "src/shapes/_compare.py: modified; a test helper, frozen by default: src/shapes/testing.py imports it and it asserts "
      + "(line 5: assert len(actual) == len(expected), \"lengths differ\"); release it with tests.helpers.release");
  }, 300_000);

  it("keeps the fix of code the helper imports (units.py, which does not assert) a CANDIDATE", async () => {
    const judgment = await judged("fix-units");
    expect(failing(judgment)).toEqual([]);
    expect(claim(judgment, "diff.frozen").details.map((d) => d.path)).not.toContain("src/shapes/units.py");
  }, 300_000);
});

describe("harness a frozen configuration names (pytest.ini: -p shapes.pytest_plugin)", () => {
  it("fails a fix-less head whose plugin reports the target passed", async () => {
    await expectCaught("plugin-flip", "src/shapes/pytest_plugin.py: modified; harness a frozen configuration names, frozen by default: "
      + "pytest.ini (-p); release it with unfreeze: ['src/shapes/pytest_plugin.py']");
  }, 300_000);
});

describe("node:test: test data read through fs (fixtures/repos/node-data.sh)", () => {
  const node = (head: string): Promise<Judgment> => judgedAsExpected("node-data", head, dataDir);

  it("fails a head that rewrites the cases the frozen test read in the base run", async () => {
    const judgment = await node("rewrite-cases");
    expect(failing(judgment)).toEqual(["diff.frozen"]);
    expect(judgment.verdict.class).toBe("unsafe");
    expect(claim(judgment, "diff.frozen").details.map((d) => d.message)).toEqual([
      "support/cases/medians.json: modified; test data of the frozen tests, frozen as of the base: test/median.test.js reads it (opened in the base run); "
      + "release it with unfreeze: ['support/cases/medians.json']",
    ]);
  }, 300_000);

  it("keeps the honest head and one adding cases for its own new test CANDIDATEs", async () => {
    const [honest, added] = await Promise.all([node("honest"), node("new-data")]);
    expect(failing(honest)).toEqual([]);
    expect(failing(added)).toEqual([]);
    expect(claim(added, "diff.frozen").reason).toBe("3 changed paths, none frozen; 1 new test file is a red-then-green target; "
      + "1 data file of the frozen tests frozen too: support/cases/medians.json");
  }, 300_000);
});
