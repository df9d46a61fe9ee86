import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JunitError, parseJunit } from "../../src/measure/junit.js";
import type { TestReport } from "../../src/measure/report-types.js";

// Fixtures: real pytest 7 / Node 20 reports made by fixtures/junit/make-fixtures.sh, and hand-written
// samples in the documented shapes of vitest, jest-junit, surefire, go-junit-report and nextest.
const FIXTURES = join(import.meta.dirname, "fixtures", "junit");
const TREE = new Set([
  "tests/test_calc.py", "tests/test_broken.py", "tests/test_td.py",
  "test/calc.test.js", "test/sub/broken.test.js", "test/sub/same.test.js",
  "test/calc.test.ts", "test/other.test.ts", "src/__tests__/calc.test.js",
  "src/test/java/com/example/CalcTest.java",
]);
const inTree = (candidate: string): boolean => TREE.has(candidate);

function parseFixture(name: string, resolve = inTree): TestReport {
  return parseJunit(readFileSync(join(FIXTURES, name), "utf8"), resolve);
}

function outcomes(report: TestReport): Record<string, string> {
  return Object.fromEntries(report.cases.map((c) => [c.id, c.flavour === undefined ? c.result : `${c.result}/${c.flavour}`]));
}

describe("parseJunit: pytest (real reports)", () => {
  it("maps dotted classnames to files and keeps every outcome apart", () => {
    const report = parseFixture("pytest.xml");
    expect(outcomes(report)).toEqual({
      "tests/test_calc.py::test_add": "passed",
      "tests/test_calc.py::test_sub_is_wrong": "failed",
      "tests/test_calc.py::test_skipped": "skipped",
      "tests/test_calc.py::test_xfail": "skipped/xfail",
      // A non-strict xpass is indistinguishable from a pass in pytest's JUnit (docs say: xfail_strict).
      "tests/test_calc.py::test_xpass": "passed",
      "tests/test_calc.py::test_xpass_strict": "failed/xpass",
      "tests/test_calc.py::test_param[1-2]": "passed",
      "tests/test_calc.py::test_param[3-4]": "passed",
      "tests/test_calc.py::test_errored": "errored",
      "tests/test_calc.py::TestX::test_y": "passed",
    });
    expect(report.loadErrors).toEqual(["tests/test_broken.py"]);
    expect(report.duplicates).toEqual([]);
    const wrong = report.cases.find((c) => c.name === "test_sub_is_wrong");
    expect(wrong?.file).toBe("tests/test_calc.py");
    expect(wrong?.message).toBe("AssertionError: two and two");
  });

  it("reads the file attribute of the xunit1 family and strict xpass", () => {
    const report = parseFixture("pytest-xunit1.xml");
    expect(outcomes(report)["tests/test_calc.py::test_xpass"]).toBe("failed/xpass");
    expect(outcomes(report)["tests/test_calc.py::TestX::test_y"]).toBe("passed");
    expect(report.cases).toHaveLength(10);
  });

  it("a collection error that interrupted the session leaves a load error and no cases", () => {
    const report = parseFixture("pytest-interrupted.xml");
    expect(report.cases).toEqual([]);
    expect(report.loadErrors).toEqual(["tests/test_broken.py"]);
  });

  it("a teardown error written as a second testcase is one test, errored, not a duplicate", () => {
    const report = parseFixture("pytest-teardown.xml");
    expect(outcomes(report)).toEqual({ "tests/test_td.py::test_fails_and_teardown": "errored" });
    expect(report.duplicates).toEqual([]);
  });

  it("says so when a classname maps to no file in the tree", () => {
    const report = parseFixture("pytest.xml", () => false);
    expect(report.cases.map((c) => c.id)).toContain("tests.test_calc::test_add");
    expect(report.cases.every((c) => c.file === null)).toBe(true);
    expect(report.notes.join("\n")).toMatch(/could not map classname tests\.test_calc to a file/);
  });
});

describe("parseJunit: node:test (real reports)", () => {
  it("nests describe names, finds the file that failed to load, and flags the clash of two files", () => {
    const report = parseFixture("node-test.xml");
    expect(outcomes(report)).toEqual({
      "test::adds": "passed",
      "test::subtracts wrongly": "failed",
      "test::skipped one": "skipped",
      "test::todo one": "skipped",
      "test::calc::multiplies": "passed",
      "test::calc::nested::divides": "passed",
    });
    expect(report.loadErrors).toEqual(["test/sub/broken.test.js"]);
    // Node 20 writes no file attribute: `adds` of calc.test.js and of same.test.js cannot be told apart.
    expect(report.duplicates).toEqual(["test::adds"]);
    expect(report.notes.join("\n")).toMatch(/could not map classname test/);
  });

  it("a single file has no duplicates", () => {
    const report = parseFixture("node-test-single.xml");
    expect(report.duplicates).toEqual([]);
    expect(report.cases).toHaveLength(6);
  });
});

describe("parseJunit: other runners (documented shapes)", () => {
  it("vitest: the classname is the file; the same name in two files stays apart", () => {
    expect(outcomes(parseFixture("vitest.xml"))).toEqual({
      "test/calc.test.ts::calc > adds": "passed",
      "test/calc.test.ts::calc > divides by zero": "failed",
      "test/calc.test.ts::calc > later": "skipped",
      "test/other.test.ts::calc > adds": "passed",
    });
  });

  it("jest-junit: absolute file attributes from the sandbox become tree paths", () => {
    const report = parseFixture("jest-junit.xml");
    expect(outcomes(report)).toEqual({
      "src/__tests__/calc.test.js::calc adds": "passed",
      "src/__tests__/calc.test.js::calc subtracts": "failed",
      "src/__tests__/calc.test.js::calc nested deep": "passed",
    });
  });

  it("surefire: the Java class maps to its source under src/test/java, nested classes too", () => {
    expect(outcomes(parseFixture("surefire.xml"))).toEqual({
      "src/test/java/com/example/CalcTest.java::adds": "passed",
      "src/test/java/com/example/CalcTest.java::subtracts": "failed",
      "src/test/java/com/example/CalcTest.java::divides": "errored",
      "src/test/java/com/example/CalcTest.java::Inner::innerWorks": "passed",
    });
  });

  it("surefire files merged into one <testsuites> document (the documented command) keep their ids", () => {
    const one = readFileSync(join(FIXTURES, "surefire.xml"), "utf8").replace(/^<\?xml[^>]*>\n/, "");
    const merged = `<testsuites>${one}${one.replaceAll("com.example.CalcTest", "com.example.OtherTest")}</testsuites>`;
    const report = parseJunit(merged, (c) => c === "src/test/java/com/example/CalcTest.java" || c === "src/test/java/com/example/OtherTest.java");
    expect(report.cases).toHaveLength(8);
    expect(report.duplicates).toEqual([]);
    expect(report.cases.map((c) => c.id)).toContain("src/test/java/com/example/OtherTest.java::Inner::innerWorks");
  });

  it("go-junit-report: package ids, with a note that they are not files", () => {
    const report = parseFixture("go-junit-report.xml");
    expect(outcomes(report)).toEqual({
      "example.com/calc::TestAdd": "passed",
      "example.com/calc::TestSub": "failed",
      "example.com/calc::TestTable/positive": "passed",
    });
    expect(report.notes.join("\n")).toMatch(/example\.com\/calc/);
  });

  it("nextest: binary ids; a pass after a retry is noted as flaky", () => {
    const report = parseFixture("nextest.xml");
    expect(outcomes(report)).toEqual({ "calc::tests::adds": "passed", "calc::tests::subtracts": "failed", "calc::tests::flaky": "passed" });
    expect(report.notes).toContain("calc::tests::flaky passed only after a retry (flaky)");
  });
});

describe("parseJunit: counting and refusing", () => {
  it("counts testcases itself and notes a summary that lies", () => {
    const xml = `<testsuites tests="40"><testsuite name="pytest"><testcase classname="tests.test_calc" name="test_a"><failure/></testcase></testsuite></testsuites>`;
    const report = parseJunit(xml, inTree);
    expect(report.cases).toEqual([{ id: "tests/test_calc.py::test_a", file: "tests/test_calc.py", name: "test_a", result: "failed" }]);
    expect(report.notes).toContain("the report's summary says 40 tests; it holds 1 testcases (counted)");
  });

  it("keeps names that look like numbers as text", () => {
    const report = parseJunit(`<testsuite name="x"><testcase classname="x" name="1e3"/></testsuite>`, inTree);
    expect(report.cases[0]?.name).toBe("1e3");
  });

  it("throws JunitError on unparsable XML and on a root that is not JUnit", () => {
    expect(() => parseJunit("<testsuites><testcase></testsuites>", inTree)).toThrow(JunitError);
    expect(() => parseJunit("<html><body/></html>", inTree)).toThrow(/not a JUnit report: the root element is <html>/);
  });
});
