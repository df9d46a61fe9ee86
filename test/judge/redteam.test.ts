import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/kernel/types.js";
import { judgedHead, notBelieved } from "../helpers/not-believed.js";
import { tempDir } from "../helpers/git-repo.js";

// Issue 19, a fresh red team: each head of fixtures/repos/python-redteam.sh and node-redteam.sh
// leaves the task undone and gets its target green from inside the runner's process by a means that
// no pattern listed (a plain attribute assignment raises no audit event; node:test's child reports
// through v8's public serializer). Each got a signed CANDIDATE before this change, with the policy
// `ranex init` writes; now the run is not believed (tests.regression FAILs, unsafe, naming what was
// replaced and by which file). The honest head of each repository stays CANDIDATE, though its code
// uses the same modules (functools' cache, a json encoder subclass, v8's serializer) on its own
// objects. Real pytest and node:test in the real sandbox, judged end to end.

const judged = (repoName: "python-redteam" | "node-redteam", head: string, dataDir: string, task?: string): Promise<Verdict> => judgedHead(repoName, head, dataDir, task);

describe("python: code of the tree planted in modules that are not the tree's, and the report rewritten", () => {
  const dataDir = tempDir("ranex-redteam-py-");

  it("the honest median stays CANDIDATE", async () => {
    const verdict = await judged("python-redteam", "honest", dataDir);
    expect(verdict.verdict, verdict.reasons.join("\n")).toBe("CANDIDATE");
  }, 300_000);

  it.each([
    ["oracle-assign", "statistics.median"],
    ["etree-element", "xml.etree.ElementTree.Element"],
    ["report-property", "_pytest.reports.TestReport.passed"],
    ["unittest-outcome", "unittest.case._Outcome"],
    ["builtins-sorted", "builtins.sorted"],
    // The built-ins the record's own checks call, blinded first (`all` says True of anything): the
    // checks hold them in their closure, and the walk still finds the tree's code in their slots.
    ["builtins-blind", "builtins.all"],
  ])("%s: the tree's code found in %s at exit", async (head, what) => {
    notBelieved(await judged("python-redteam", head, dataDir), `put its own code into ${what}`, "src/stats_tool/__init__.py");
  }, 300_000);

  it("report-finalize: a finalizer rewriting the report found from /proc/self/cmdline", async () => {
    notBelieved(await judged("python-redteam", "report-finalize", dataDir), "wrote the test report (open)", "src/stats_tool/__init__.py:");
  }, 300_000);

  it("oracle-builtin: statistics.median swapped for a builtin of the interpreter, no tree code in the slot", async () => {
    notBelieved(await judged("python-redteam", "oracle-builtin", dataDir), "statistics.median (was statistics.median, now builtins.callable) was replaced, which the base run did not do");
  }, 300_000);

  it("code-swap: statistics.median's __code__ replaced in place by the tree's, identity and globals kept", async () => {
    notBelieved(await judged("python-redteam", "code-swap", dataDir), "statistics.median.__code__", "src/stats_tool/__init__.py");
  }, 300_000);

  it("honest-monkeypatch: a new test that swaps the oracle through pytest's monkeypatch fixture stays CANDIDATE", async () => {
    const verdict = await judged("python-redteam", "honest-monkeypatch", dataDir);
    expect(verdict.verdict, verdict.reasons.join("\n")).toBe("CANDIDATE");
  }, 300_000);

  it.each([
    ["restore-atexit", "statistics.median (was statistics.median, now builtins.callable) while tests/test_median.py::TestMedian::test_median ran"],
    ["class-restore", "fractions.Fraction.__eq__ (was fractions.Fraction.__eq__, now fractions.Fraction.__le__) while tests/test_median.py::TestMedian::test_median ran"],
  ])("%s: swapped while the target ran and put back at exit by setattr itself, found after the test (%s)", async (head, what) => {
    notBelieved(await judged("python-redteam", head, dataDir), `${what}, which the base run did not do`);
  }, 300_000);

  it("always-equal: median_of returns a float of its own equal to anything, so assertEqual passes with nothing tampered", async () => {
    notBelieved(await judged("python-redteam", "always-equal", dataDir), "the tree class stats_tool._Median (asked with a blank instance when the tests were collected) whose __eq__ says it equals an object it has never seen (src/stats_tool/__init__.py:5)");
  }, 300_000);

  it("always-equal-own: the same value passes the PR's own new test, its only target (no task)", async () => {
    const verdict = await judgedHead("python-redteam", "always-equal-own", dataDir, null);
    const claim = verdict.claims.find((c) => c.name === "tests.red_green");
    expect(verdict.verdict, claim?.reason).toBe("FAIL");
    expect(verdict.class).toBe("unsafe");
    expect(claim?.reason).toContain("during the head+new run the tree class stats_tool._Median (asked with a blank instance when the tests were collected) whose __eq__ says it equals an object it has never seen (src/stats_tool/__init__.py:5)");
  }, 300_000);

  it("always-equal-picky: an __eq__ true only for numbers passes the frozen assertEqual, the stranger told apart", async () => {
    notBelieved(await judged("python-redteam", "always-equal-picky", dataDir), "stats_tool._Median", "whose __eq__ says it equals", "(src/stats_tool/__init__.py:5)");
  }, 300_000);

  it.each([
    ["not-unequal-own", "whose __ne__ says it is not unequal to", "src/stats_tool/__init__.py:5"],
    ["differs-own", "whose __ne__ says it differs from itself", "src/stats_tool/__init__.py:5"],
  ])("%s: the value passes the PR's own new test (no task), and the run is not believed", async (head, what, where) => {
    const verdict = await judgedHead("python-redteam", head, dataDir, null);
    const claim = verdict.claims.find((c) => c.name === "tests.red_green");
    expect(verdict.verdict, claim?.reason).toBe("FAIL");
    expect(verdict.class).toBe("unsafe");
    expect(claim?.reason).toContain(what);
    expect(claim?.reason).toContain(`(${where})`);
  }, 300_000);

  it("test-globals: the frozen test module's own oracle rebound while the target runs", async () => {
    notBelieved(await judged("python-redteam", "test-globals", dataDir), "test_median.statistics (was module statistics, now stats_tool._Oracle) while tests/test_median.py::TestMedian::test_median ran, which the base run did not do");
  }, 300_000);

  it("test-globals-import: the same name rebound at import, while the test module is half made", async () => {
    notBelieved(await judged("python-redteam", "test-globals-import", dataDir), "test_median.statistics (stats_tool._Oracle, not the module statistics) before the first test ran, which the base run did not do");
  }, 300_000);

  it("report-rename: a thread renaming a forged copy over the report after the main thread ended", async () => {
    notBelieved(await judged("python-redteam", "report-rename", dataDir), "wrote the test report (os.rename)", "src/stats_tool/__init__.py:");
  }, 300_000);
});

describe("node:test: what the test file's process reports to the runner, forged", () => {
  const dataDir = tempDir("ranex-redteam-node-");

  it("the honest median stays CANDIDATE", async () => {
    const verdict = await judged("node-redteam", "honest", dataDir);
    expect(verdict.verdict, verdict.reasons.join("\n")).toBe("CANDIDATE");
  }, 300_000);

  it("the honest sorted copy stays CANDIDATE, though it writes to stdout in node:test's child", async () => {
    const verdict = await judged("node-redteam", "honest", dataDir, "sorted");
    expect(verdict.verdict, verdict.reasons.join("\n")).toBe("CANDIDATE");
  }, 300_000);

  it("v8-serializer: v8.Serializer.prototype.writeValue rewriting test:fail into test:pass", async () => {
    notBelieved(await judged("node-redteam", "v8-serializer", dataDir), "node:v8.Serializer.prototype.writeValue was replaced");
  }, 300_000);

  it("stdout-forge: process.stdout.write rewriting the serialized events", async () => {
    notBelieved(await judged("node-redteam", "stdout-forge", dataDir), "process.stdout.write was replaced");
  }, 300_000);

  it("intrinsic-sort: Array.prototype.sort replaced, so the frozen test's expected value agrees with an unsorted copy", async () => {
    notBelieved(await judged("node-redteam", "intrinsic-sort", dataDir, "sorted"), "Array.prototype.sort was replaced, which the base run did not do");
  }, 300_000);

  it("intrinsic-sort-restored: the same swap put back from beforeExit is seen when node:test's reporter serializes the test's end", async () => {
    // CANDIDATE before: the preload compared only at exit, after the tree's beforeExit had put the sort back.
    notBelieved(await judged("node-redteam", "intrinsic-sort-restored", dataDir, "sorted"), "Array.prototype.sort was replaced, which the base run did not do");
  }, 300_000);

  it("assert-restored: node:assert's deepStrictEqual wrapped and put back from beforeExit is seen as the test ends", async () => {
    // CANDIDATE before: node:assert's functions were compared at exit only.
    notBelieved(await judged("node-redteam", "assert-restored", dataDir, "sorted"), "node:assert.deepStrictEqual");
  }, 300_000);

  it("child-forge: a serialized test:pass written onto fd 1 by hand, then process.exit(0) before the failure", async () => {
    notBelieved(await judged("node-redteam", "child-forge", dataDir),
      "test/median.test.js::median of odd and even lists passed, but the node:test process of test/median.test.js never reported it passing");
  }, 300_000);
});
