import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJunit } from "../../src/measure/junit.js";
import { treeResolver } from "../../src/measure/junit-read.js";
import type { ResolveFile } from "../../src/measure/junit-paths.js";

// Ids (issue 11): real reports of pytest 9, Node 20's node:test (built-in reporter and the gate's own)
// and vitest, made by fixtures/junit/make-fixtures.sh, read against a real tree on disk.
const FIXTURES = join(import.meta.dirname, "fixtures", "junit");

function tree(paths: readonly string[]): ResolveFile {
  const root = mkdtempSync(join(tmpdir(), "ranex-ids-"));
  for (const path of paths) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), "");
  }
  return treeResolver(root);
}

const read = (name: string, resolve: ResolveFile) => parseJunit(readFileSync(join(FIXTURES, name), "utf8"), resolve);
const outcomes = (report: ReturnType<typeof read>) => Object.fromEntries(report.cases.map((c) => [c.id, c.result]));

describe("ids of tests in a folder whose name holds a dot", () => {
  it("resolves pytest's dotted classname against the tree (tests/v2.0/test_x.py), collection error included", () => {
    const report = read("pytest-dotted-dir.xml", tree(["tests/v2.0/test_x.py", "tests/v2.0/test_broken.py"]));
    expect(outcomes(report)).toEqual({ "tests/v2.0/test_x.py::TestV::test_a": "passed", "tests/v2.0/test_x.py::test_b": "failed" });
    expect(report.cases.map((c) => c.file)).toEqual(["tests/v2.0/test_x.py", "tests/v2.0/test_x.py"]);
    expect(report.loadErrors).toEqual(["tests/v2.0/test_broken.py"]);
    expect(report.notes).toEqual([]);
  });

  it("prefers the plain reading when both exist, and a dotted file name works too", () => {
    const resolve = tree(["tests/v2/test_x.py", "tests/v2.0/test_x.py", "pkg/test_v1.2.py"]);
    const xml = `<testsuites><testsuite name="pytest">
      <testcase classname="tests.v2.test_x" name="test_a"/><testcase classname="tests.v2.0.test_x" name="test_a"/>
      <testcase classname="pkg.test_v1.2.TestY" name="test_b"/></testsuite></testsuites>`;
    expect(parseJunit(xml, resolve).cases.map((c) => c.id)).toEqual([
      "tests/v2/test_x.py::test_a", "tests/v2.0/test_x.py::test_a", "pkg/test_v1.2.py::TestY::test_b",
    ]);
  });
});

describe("a load error only in the runner's own shape", () => {
  const paths = ["README.md", "test/slug.test.js", "test/sub/broken.test.js"];

  it("node:test, built-in reporter: a test NAMED like a path is a test; the file that failed to load is the load error", () => {
    const report = read("node-test-path-names.xml", tree(paths));
    expect(outcomes(report)).toEqual({
      "test::slug of ./README.md": "passed",
      "test::fails slug of test/slug.test.js": "failed",
      "test::test/slug.test.js": "failed",
    });
    expect(report.loadErrors).toEqual(["test/sub/broken.test.js"]);
  });

  it("node:test, the gate's reporter: the same", () => {
    const report = read("node-gate-path-names.xml", tree(paths));
    expect(outcomes(report)).toEqual({
      "test/slug.test.js::slug of ./README.md": "passed",
      "test/slug.test.js::fails slug of test/slug.test.js": "failed",
    });
    // A test named exactly like its own file is indistinguishable from the reporter's file entry;
    // it failed, so it is read as the file failing: red either way.
    expect(report.loadErrors).toEqual(["test/slug.test.js", "test/sub/broken.test.js"]);
  });

  it("vitest: a file that cannot import or throws at load is a load error; a title ending in a path is a test", () => {
    const report = read("vitest-load-error.xml", tree(["README.md", "test/ok.test.js", "test/broken.test.js", "test/throws.test.js"]));
    expect(outcomes(report)).toEqual({ "test/ok.test.js::slug of ./README.md": "passed" });
    expect(report.loadErrors).toEqual(["test/broken.test.js", "test/throws.test.js"]);
  });

  it("jest-junit's title-as-classname that ends in a path is a test, not a file", () => {
    const xml = `<testsuites><testsuite name="docs" file="test/docs.test.js">
      <testcase classname="docs parses ./README.md" name="docs parses ./README.md" file="test/docs.test.js"><failure message="x"/></testcase>
    </testsuite></testsuites>`;
    const report = parseJunit(xml, tree(["README.md", "test/docs.test.js"]));
    expect(report.loadErrors).toEqual([]);
    expect(outcomes(report)).toEqual({ "test/docs.test.js::docs parses ./README.md": "failed" });
  });

  const jestTree = ["README.md", "test/ok.test.js", "test/syntax.test.js", "test/missing.test.js", "test/throws.test.js", "test/empty.test.js"];
  const jestLoadErrors = ["test/empty.test.js", "test/missing.test.js", "test/syntax.test.js", "test/throws.test.js"];
  // The line that says why, not jest's "● Test suite failed to run" banner nor its JSON dump of the error.
  const jestReasons = [
    { file: "test/empty.test.js", message: "Your test suite must contain at least one test." },
    { file: "test/missing.test.js", message: "Cannot find module './nope.js' from 'test/missing.test.js'" },
    { file: "test/syntax.test.js", message: expect.stringMatching(/^SyntaxError: .*test\/syntax\.test\.js: Unexpected token \(2:0\)$/) as unknown as string },
    { file: "test/throws.test.js", message: "boom at load" },
  ];

  it("jest through the gate's launcher: a file that fails to run is a load error with its reason; titles ending in a path are tests", () => {
    const report = read("jest-load-error.xml", tree(jestTree));
    expect(outcomes(report)).toEqual({ "test/ok.test.js::loads ./README.md": "passed", "test/ok.test.js::docs fails test/ok.test.js": "failed" });
    expect(report.loadErrors).toEqual(jestLoadErrors);
    expect(report.loadErrorMessages).toEqual(jestReasons);
    // jest-junit counts a suite that failed to run as an error, not a test: no false "summary says" note.
    expect(report.notes).toEqual([]);
  });

  it("jest by hand, with only suite errors reported (no file attribute, default names): the same load errors", () => {
    const report = read("jest-load-error-plain.xml", tree(jestTree));
    expect(report.loadErrors).toEqual(jestLoadErrors);
    expect(report.loadErrorMessages).toEqual(jestReasons);
    expect(report.cases.map((c) => c.name)).toEqual(["loads ./README.md", "docs fails test/ok.test.js"]);
  });

  it("jest: only the whole shape is a load error, never a test that borrows part of it", () => {
    const resolve = tree(["README.md", "test/a.test.js"]);
    const xml = `<testsuites>
      <testsuite name="test/a.test.js" tests="2" errors="0" failures="2">
        <testcase classname="Test suite failed to run" name="Test suite failed to run" file="test/a.test.js"><failure>x</failure></testcase>
        <testcase classname="Test suite failed to run" name="test/a.test.js" file="test/a.test.js"><failure>y</failure></testcase>
      </testsuite>
      <testsuite name="test/a.test.js" tests="0" errors="1">
        <testcase classname="Test suite failed to run" name="README.md" file="test/a.test.js"><error>z</error></testcase>
      </testsuite>
    </testsuites>`;
    const report = parseJunit(xml, resolve);
    // In a suite that ran tests (tests="2"), a test named like its own file is the documented odd case
    // of the generic rule (name = file attribute); one named "Test suite failed to run" is a test.
    expect(report.loadErrors).toEqual(["test/a.test.js"]);
    expect(outcomes(report)).toEqual({ "test/a.test.js::Test suite failed to run": "failed", "test/a.test.js::README.md": "errored" });
  });

  it("pytest and vitest load errors carry the reason their reports give; node:test's says only \"test failed\"", () => {
    expect(read("pytest.xml", tree(["tests/test_calc.py", "tests/test_broken.py"])).loadErrorMessages)
      .toEqual([{ file: "tests/test_broken.py", message: "ModuleNotFoundError: No module named 'no_such_module_here'" }]);
    expect(read("vitest-load-error.xml", tree(["README.md", "test/ok.test.js", "test/broken.test.js", "test/throws.test.js"])).loadErrorMessages)
      .toEqual([
        { file: "test/broken.test.js", message: expect.stringMatching(/^Error: Cannot find module '\.\/nope\.js' imported from /) as unknown as string },
        { file: "test/throws.test.js", message: "Error: boom at load" },
      ]);
    expect(read("node-test-path-names.xml", tree(paths)).loadErrorMessages).toBeUndefined();
  });
});
