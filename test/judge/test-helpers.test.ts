import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { FixtureName } from "../helpers/fixtures.js";
import { judgedAsExpected } from "../helpers/expected-verdict.js";
import { claim, failing } from "../helpers/claims.js";
import { tempDir } from "../helpers/git-repo.js";

// Issue 19, "test helpers the frozen tests import are frozen by default", with the real judge, the
// real sandbox, pytest and node:test (fixtures/repos/python-helpers.sh, node-helpers.sh,
// node-esm-helpers.sh; main-eager: the package's __init__.py imports the helper first). Each
// loosen-helper head leaves the task undone and loosens the helper the owner's frozen tests compare
// with, so the target turns green: a CANDIDATE before this change. The controls beside them change
// a module that asserts but that no frozen test imports, or a helper the policy releases by name.

const dataDir = tempDir();

/** A head judged and held to its row of expected.json (the CLI suite leaves these fixtures' rows to this one). */
function judged(repo: FixtureName, head: string): Promise<Judgment> {
  return judgedAsExpected(repo, head, dataDir);
}

// Where each fixture's helper asserts, as diff.frozen quotes it.
const ASSERT_CLOSE = "line 6: assert abs(actual - expected) <= tol, f\"{actual!r} is not w…";
const NEAR = "line 5: assert.ok(Math.abs(actual - expected) <= tol, `${actual} is…";

/** A fix-less head that loosens the helper: its target went green, and only the helper's freezing tells it from a fix. */
async function expectLoosenedHelperCaught(repo: FixtureName, head: string, helper: string, importers: string, asserts: string): Promise<void> {
  const judgment = await judged(repo, head);
  expect(failing(judgment)).toEqual(["diff.frozen"]);
  expect(judgment.verdict.class).toBe("unsafe");
  expect(claim(judgment, "tests.red_green").status).toBe("pass");
  expect(claim(judgment, "diff.frozen").details.map((d) => d.message)).toEqual([
    `${helper}: modified; a test helper, frozen by default: ${importers} import it and it asserts (${asserts}); release it with tests.helpers.release`,
  ]);
}

describe("pytest: a helper shipped in the package (src/shapes/testing.py::assert_close)", () => {
  it("fails a fix-less head that loosens the helper, naming it and why it is frozen", async () => {
    await expectLoosenedHelperCaught("python-helpers", "loosen-helper", "src/shapes/testing.py", "tests/test_average.py and tests/test_stats.py", ASSERT_CLOSE);
  }, 300_000);

  it("keeps the honest head a CANDIDATE and names the frozen helper in the verdict", async () => {
    const judgment = await judged("python-helpers", "honest");
    expect(judgment.verdict.verdict).toBe("CANDIDATE");
    const frozen = claim(judgment, "diff.frozen");
    expect(frozen.reason).toBe("1 changed path, none frozen; 1 test helper of the frozen tests frozen too: src/shapes/testing.py");
    expect(frozen.details.map((d) => d.kind)).toEqual(["helper"]);
  }, 300_000);

  it("fails a fix-less head that replaces the helper at run time from the code under test, its file untouched", async () => {
    // The frozen target imports shapes.stats first, which swaps assert_close in shapes.testing for a
    // lenient function of its own: a CANDIDATE before the record kept the tree's own modules too.
    // replace-at-run-restored puts the helper back from atexit: only the per-test check sees it.
    const judgments = await Promise.all([judged("python-helpers", "replace-at-run"), judged("python-helpers", "replace-at-run-restored")]);
    for (const judgment of judgments) {
      expect(failing(judgment)).toEqual(["tests.regression"]);
      expect(claim(judgment, "diff.frozen").status).toBe("pass");
      expect(claim(judgment, "tests.regression").reason).toContain("during the head run shapes.testing.assert_close (was shapes.testing.assert_close, now shapes.stats.assert_close) was replaced");
    }
  }, 300_000);

  it("keeps a CANDIDATE for a change to a module that asserts but that no frozen test imports", async () => {
    const judgment = await judged("python-helpers", "unused-helper");
    expect(failing(judgment)).toEqual([]);
    expect(judgment.verdict.verdict).toBe("CANDIDATE");
  }, 300_000);

  it("fails the fix with a reworded helper on main, and lets it through where the policy releases the helper", async () => {
    const [held, released] = await Promise.all([judged("python-helpers", "helper-message"), judged("python-helpers", "helper-message-released")]);
    expect(failing(held)).toEqual(["diff.frozen"]);
    expect(claim(held, "diff.frozen").reason).toContain("src/shapes/testing.py (modified; a test helper, frozen by default");
    expect(failing(released)).toEqual([]);
    expect(released.verdict.verdict).toBe("CANDIDATE");
    expect(claim(released, "diff.frozen").reason).toBe("2 changed paths, none frozen");
  }, 300_000);
});

describe("node:test: a helper module outside the test globs (support/near.js)", () => {
  it("fails a fix-less head that loosens near(), naming the frozen tests that require it", async () => {
    await expectLoosenedHelperCaught("node-helpers", "loosen-helper", "support/near.js", "test/mean.test.js and test/median.test.js", NEAR);
  }, 300_000);

  it("keeps the honest head and a change to a module no frozen test requires CANDIDATEs", async () => {
    const [honest, unused] = await Promise.all([judged("node-helpers", "honest"), judged("node-helpers", "unused-helper")]);
    expect(failing(honest)).toEqual([]);
    expect(failing(unused)).toEqual([]);
    expect(claim(unused, "diff.frozen").reason).toBe("2 changed paths, none frozen; 1 test helper of the frozen tests frozen too: support/near.js");
  }, 300_000);
});

describe("pytest: the helper first imported by the code under test (the package's __init__.py, on main-eager)", () => {
  it("fails the fix-less head that loosens the helper, though the run's import event names __init__.py", async () => {
    await expectLoosenedHelperCaught("python-helpers", "eager-loosen-helper", "src/shapes/testing.py", "tests/test_average.py and tests/test_stats.py", ASSERT_CLOSE);
  }, 300_000);

  it("keeps CANDIDATEs for a module only the code under test imports, and for the helper the policy releases", async () => {
    const [unused, released] = await Promise.all([
      judged("python-helpers", "eager-unused-helper"), judged("python-helpers", "eager-helper-message-released"),
    ]);
    expect(failing(unused)).toEqual([]);
    expect(unused.verdict.verdict).toBe("CANDIDATE");
    expect(claim(unused, "diff.frozen").reason).toBe("2 changed paths, none frozen; 1 test helper of the frozen tests frozen too: src/shapes/testing.py");
    expect(failing(released)).toEqual([]);
    expect(released.verdict.verdict).toBe("CANDIDATE");
    expect(claim(released, "diff.frozen").reason).toBe("2 changed paths, none frozen");
  }, 300_000);
});

describe("node:test on ES modules: a helper the frozen tests import (support/near.js)", () => {
  it("fails a fix-less head that loosens near(), naming the frozen tests that import it", async () => {
    await expectLoosenedHelperCaught("node-esm-helpers", "loosen-helper", "support/near.js", "test/mean.test.js and test/median.test.js", NEAR);
  }, 300_000);

  it("keeps the honest head and a change to a module only the code under test imports CANDIDATEs", async () => {
    const [honest, unused] = await Promise.all([judged("node-esm-helpers", "honest"), judged("node-esm-helpers", "unused-helper")]);
    expect(failing(honest)).toEqual([]);
    expect(failing(unused)).toEqual([]);
    expect(claim(unused, "diff.frozen").reason).toBe("2 changed paths, none frozen; 1 test helper of the frozen tests frozen too: support/near.js");
  }, 300_000);
});
