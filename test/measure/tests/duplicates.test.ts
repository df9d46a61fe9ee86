import { describe, expect, it } from "vitest";
import { parseJunit } from "../../../src/measure/junit.js";
import { uniqueIds } from "../../../src/measure/tests/outcomes.js";
import { collectTargets } from "../../../src/measure/tests/targets.js";
import { redGreenClaim } from "../../../src/measure/tests/red-green.js";
import { regressionClaim } from "../../../src/measure/tests/regression.js";
import type { SuiteRun } from "../../../src/measure/report-types.js";
import { runSuite, VITEST } from "./real-run.js";

// Duplicates never block by themselves (issue 15): real vitest and node:test runs of suites whose
// tests share names, compared as a multiset of outcomes.
const SUBJECT = "sha256:subject";
const NODE = 'node --test --test-reporter=junit --test-reporter-destination="$RANEX_JUNIT" test/';

// A `test.each` title with no placeholder, and one describe title used twice: three and two copies.
const suite = (calc: string): Record<string, string> => ({
  "calc.js": calc,
  "test/calc.test.js": [
    'import { add } from "../calc.js";',
    'test.each([[1, 1, 2], [2, 2, 4], [3, 3, 6]])("adds", (a, b, sum) => { expect(add(a, b)).toBe(sum); });',
    'describe("calc", () => { test("adds zero", () => { expect(add(0, 5)).toBe(5); }); });',
    'describe("calc", () => { test("adds zero", () => { expect(add(5, 0)).toBe(5); }); });',
  ].join("\n"),
  "package.json": '{"type":"module"}',
});
const HONEST = "export const add = (a, b) => a + b;\n";

describe("same-named tests in a real vitest suite", () => {
  let base: Promise<SuiteRun> | undefined;
  const baseRun = (): Promise<SuiteRun> => (base ??= runSuite("base", suite(HONEST), { command: VITEST }));

  it("an honest change passes tests.regression, where the report used to be 'ambiguous' and block", async () => {
    const head = await runSuite("head", suite("export function add(a, b) { return b + a; }\n"), { command: VITEST });
    expect((await baseRun()).report?.duplicates).toEqual(["test/calc.test.js::adds", "test/calc.test.js::calc > adds zero"]);
    const evidence = regressionClaim(SUBJECT, await baseRun(), head, [], []);
    expect(evidence.outcome).toBe("pass");
    expect(evidence.reason).toBe("all 2 tests that passed on base pass on head (2 tests ran on head)");
  });

  it("a change that breaks one copy fails, naming the shared id and the counts", async () => {
    const head = await runSuite("head", suite("export const add = (a, b) => (a === 2 ? 5 : a + b);\n"), { command: VITEST });
    const evidence = regressionClaim(SUBJECT, await baseRun(), head, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toBe("tests that passed on base do not pass on head: test/calc.test.js::adds");
    expect(evidence.details).toContainEqual({
      kind: "regressed", path: "test/calc.test.js",
      message: "test/calc.test.js::adds: a test of this shared name went from pass to not-pass (base: 3 of 3 copies passed; head: 2 of 3 copies passed)",
    });
  });

  it("lists each copy as an id of its own, for a task to name", async () => {
    const report = (await baseRun()).report;
    expect(report === null ? [] : uniqueIds(report)).toEqual([
      "test/calc.test.js::adds#1", "test/calc.test.js::adds#2", "test/calc.test.js::adds#3",
      "test/calc.test.js::calc > adds zero#1", "test/calc.test.js::calc > adds zero#2",
    ]);
  });
});

describe("same-named tests with node:test (no file in the ids)", () => {
  const same = (name: string, body = "") => `import { test } from "node:test";\nimport assert from "node:assert/strict";\ntest("${name}", () => { ${body} });\n`;

  it("a copy that was already red on base may stay red", async () => {
    const files = { "package.json": '{"type":"module"}', "test/a.test.js": same("works"), "test/b.test.js": same("works", "assert.equal(1, 2);") };
    const [base, head] = await Promise.all([runSuite("base", files, { command: NODE }), runSuite("head", files, { command: NODE })]);
    const evidence = regressionClaim(SUBJECT, base, head, [], []);
    expect(evidence.outcome).toBe("pass");
  });

  it("a passing copy added beside a broken one does not hide the break (the copies grew and more fail)", async () => {
    const files = { "package.json": '{"type":"module"}', "test/a.test.js": same("works"), "test/b.test.js": same("works") };
    const masked = { ...files, "test/b.test.js": same("works", "assert.equal(1, 2);"), "test/c.test.js": same("works"), "test/d.test.js": same("works") };
    const [base, head] = await Promise.all([runSuite("base", files, { command: NODE }), runSuite("head", masked, { command: NODE })]);
    const evidence = regressionClaim(SUBJECT, base, head, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.details).toContainEqual(expect.objectContaining({
      kind: "regressed", message: "test::works: a test of this shared name went from pass to not-pass (base: 2 of 2 copies passed; head: 3 of 4 copies passed)",
    }));
  });
});

describe("targets that several tests share", () => {
  // Hand-written in vitest's shape (as above): the base with one copy red, the head with it green.
  const report = (second: "pass" | "fail") => parseJunit(`<testsuites><testsuite name="test/calc.test.js">
    <testcase classname="test/calc.test.js" name="adds"/>
    <testcase classname="test/calc.test.js" name="adds">${second === "fail" ? '<failure message="expected 5 to be 4"/>' : ""}</testcase>
    </testsuite></testsuites>`, (p) => p === "test/calc.test.js");
  const run = (label: "base" | "head", second: "pass" | "fail"): SuiteRun => {
    const r = report(second);
    const red = second === "fail";
    return {
      label, setup: null, report: r, reportError: null,
      command: { exitCode: red ? 1 : 0, signal: null, timedOut: false, durationMs: 10, outputTail: "", outputBytes: 0, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null },
    };
  };

  it("refuses a task target that names the shared id, with the ids that name each copy", () => {
    const evidence = redGreenClaim(SUBJECT, { base: run("base", "fail"), head: run("head", "pass"), baseNew: null, headNew: null }, [{ id: "test/calc.test.js::adds", origin: "task" }]);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.reason).toMatch(/^the task names targets that more than one test shares, so their results cannot be told apart: test\/calc.test.js::adds/);
    expect(evidence.details).toContainEqual({
      kind: "ambiguous", message: "test/calc.test.js::adds is shared by 2 tests: name one of them instead (test/calc.test.js::adds#1, test/calc.test.js::adds#2)",
    });
  });

  it("judges a task target that names one copy by its place", () => {
    const ok = redGreenClaim(SUBJECT, { base: run("base", "fail"), head: run("head", "pass"), baseNew: null, headNew: null }, [{ id: "test/calc.test.js::adds#2", origin: "task" }]);
    expect(ok).toMatchObject({ outcome: "pass", reason: "all 1 target tests fail on base and pass on head" });
    const notRed = redGreenClaim(SUBJECT, { base: run("base", "fail"), head: run("head", "pass"), baseNew: null, headNew: null }, [{ id: "test/calc.test.js::adds#1", origin: "task" }]);
    expect(notRed.reason).toBe("targets that do not fail on base: test/calc.test.js::adds#1");
  });

  it("makes each copy in a new test file a target of its own", () => {
    expect(collectTargets([], ["test/calc.test.js"], run("head", "pass"))).toEqual([
      { id: "test/calc.test.js::adds#1", origin: "new-file" }, { id: "test/calc.test.js::adds#2", origin: "new-file" },
    ]);
  });
});
