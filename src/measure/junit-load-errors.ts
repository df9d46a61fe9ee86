// "This test file did not load", in each runner's own JUnit shape, and the error that says why.
import { attribute, children, firstLine, type XmlNode } from "./junit-case.js";
import { looksLikePath, resolveDottedClassname, resolveReportedPath, type ResolveFile } from "./junit-paths.js";

/** The enclosing <testsuite>, as the reader saw it. */
export interface SuiteContext {
  name: string;
  /** Its `tests` attribute, as written. */
  tests: string | undefined;
}

export interface LoadEntry {
  /** The test file, relative to the tree (or as the report named it, when the shape is unmistakable). */
  file: string;
  /** A failed entry is a load error; a passing one (node:test reports a file without tests so) is no test. */
  failed: boolean;
  /** The first line that says why, when the report says more than "failed". */
  message: string | undefined;
  /** Whether the runner counts this entry in its summary's `tests` (jest-junit counts it as an error only). */
  counted: boolean;
}

/** jest-junit's fixed classname for a suite that failed to run (JEST_JUNIT_REPORT_TEST_SUITE_ERRORS). */
export const JEST_SUITE_ERROR = "Test suite failed to run";

// Only a runner's own shape for "this file did not load" counts as one, never a test whose name merely
// ends in a path (`slug of ./README.md`):
// - pytest: a collection error is a testcase with an empty classname, named after the module, whose
//   error message is "collection failure";
// - jest-junit (with suite errors reported): a <testsuite> of 0 tests named by the file's path, holding
//   testcases of classname "Test suite failed to run" named by that same path; jest-junit forces these
//   names whatever its templates say, and an ordinary test's name and classname never take that pair;
// - node:test (Node 20's junit reporter): a testcase of classname "test" named by the file's absolute
//   path; the gate's own reporter names it by the file it reports it in (name = file attribute);
// - vitest: a testcase whose name is its classname, the file's path.
export function loadEntry(
  testcase: XmlNode, name: string, classname: string, result: string, message: string | undefined,
  suite: SuiteContext | undefined, resolve: ResolveFile,
): LoadEntry | null {
  const failed = result === "failed" || result === "errored";
  if (classname === "" && result === "errored" && message === "collection failure") {
    const file = resolveDottedClassname(name, resolve)?.file ?? resolveReportedPath(name, resolve) ?? name;
    return { file, failed, message: errorLine(testcase), counted: true };
  }
  const fileAttribute = attribute(testcase, "file");
  if (classname === JEST_SUITE_ERROR && looksLikePath(name) && suite !== undefined && suite.name === name
    && suite.tests === "0" && (fileAttribute === undefined || fileAttribute === name) && failed) {
    return { file: resolveReportedPath(name, resolve) ?? name, failed, message: errorLine(testcase), counted: false };
  }
  const absolute = /^(?:\/|file:\/\/)/.test(name);
  const shape = name === "" || !looksLikePath(name) ? null
    : !absolute && (name === fileAttribute || name === classname) ? "relative"
      : absolute && classname === "test" && fileAttribute === undefined ? "absolute" : null;
  if (shape === null) return null;
  const file = resolveReportedPath(name, resolve);
  // A relative name must be the path itself, not a title that ends in one (jest-junit writes the
  // title as both name and classname: "parses ./README.md").
  if (file === null || (shape === "relative" && file !== name.replace(/^\.\//, ""))) return null;
  return { file, failed, message: failed ? errorLine(testcase) : undefined, counted: true };
}

// What runners write around the error itself: jest's banner and its JSON dump of the error object,
// node:test's "test failed", pytest's marker and traceback lines.
const NOT_THE_ERROR = /^(?:● Test suite failed to run|collection failure|test failed|\[Error: test failed\].*|[{[].*|Traceback:?.*|at .*|Hint: .*|>.*|\|.*|\d+ \|.*)$/;

/**
 * The line of a load error's message or text that says why: a line that names an error with its
 * message (`SyntaxError: …`, pytest's `E   ModuleNotFoundError: …`), else the first line that is not
 * the runner's own wrapping ("Cannot find module './x' from 'test/a.test.js'", "boom at load").
 */
function errorLine(testcase: XmlNode): string | undefined {
  const element = children(testcase, "error")[0] ?? children(testcase, "failure")[0];
  if (element === undefined) return undefined;
  const body = typeof element === "string" ? element : typeof element["#text"] === "string" ? element["#text"] : "";
  const lines = [attribute(element, "message") ?? "", body].join("\n").split(/\r?\n/)
    .map((line) => line.trim().replace(/^E {2,}/, "")).filter((line) => line !== "" && !NOT_THE_ERROR.test(line));
  const named = lines.find((line) => /^[\w.]*(?:Error|Exception)\b:/.test(line));
  return firstLine(named ?? lines[0]);
}
