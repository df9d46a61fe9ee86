// Parses a JUnit XML report of any common runner into test cases with stable, readable ids
// (`<file>::<name>`, like pytest node ids). The report is untrusted: readJunitReport refuses dangerous
// bytes before this runs; here the testcases are counted one by one, never taken from summaries.
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { createHash } from "node:crypto";
import type { CopyOutcome, TestCaseResult, TestReport } from "./report-types.js";
import { attribute, caseOutcome, children, worse, type XmlNode } from "./junit-case.js";
import { looksLikePath, resolveDottedClassname, resolveReportedPath, type ResolveFile } from "./junit-paths.js";
import { loadEntry } from "./junit-load-errors.js";

export class JunitError extends Error {}

const ARRAY_TAGS = new Set([
  "testsuite", "testcase", "failure", "error", "skipped", "flakyFailure", "flakyError", "rerunFailure", "rerunError",
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  // Names like `1e3` or `true` stay strings.
  parseTagValue: false,
  parseAttributeValue: false,
  // Only the five XML entities remain possible: DTDs are refused before parsing.
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (tag) => ARRAY_TAGS.has(tag),
});

/** Suite names that are the runner's own container, not part of any test's identity. */
const CONTAINER_SUITES = new Set(["pytest"]);

interface Suite {
  name: string;
  file: string | undefined;
  tests: string | undefined;
}

interface Builder {
  resolve: ResolveFile;
  cases: Map<string, TestCaseResult>;
  duplicates: Set<string>;
  loadErrors: Set<string>;
  /** The first error message read for each file in loadErrors. */
  loadErrorMessages: Map<string, string>;
  notes: Set<string>;
  counted: number;
}

/**
 * Parses JUnit XML. `resolveFile` says whether a relative path names a file in the tree the suite ran
 * in; it is how classnames become files. Throws JunitError when the text is not a JUnit report.
 */
export function parseJunit(xml: string, resolveFile: ResolveFile): TestReport {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new JunitError(`unparsable XML: ${valid.err.msg} (line ${valid.err.line})`);
  const document = parser.parse(xml) as Record<string, unknown>;
  const builder: Builder = {
    resolve: cached(resolveFile), cases: new Map(), duplicates: new Set(), loadErrors: new Set(), loadErrorMessages: new Map(),
    notes: new Set(), counted: 0,
  };
  const root = rootOf(document);
  walk(root, [], builder);
  const declared = attribute(root, "tests");
  if (declared !== undefined && Number(declared) !== builder.counted) {
    builder.notes.add(`the report's summary says ${declared} tests; it holds ${builder.counted} testcases (counted)`);
  }
  return {
    cases: [...builder.cases.values()],
    digest: `sha256:${createHash("sha256").update(xml, "utf8").digest("hex")}`,
    duplicates: [...builder.duplicates].sort(),
    loadErrors: [...builder.loadErrors].sort(),
    ...(builder.loadErrorMessages.size > 0
      ? { loadErrorMessages: [...builder.loadErrorMessages].sort(([a], [b]) => a.localeCompare(b)).map(([file, message]) => ({ file, message })) }
      : {}),
    notes: [...builder.notes],
  };
}

function rootOf(document: Record<string, unknown>): XmlNode {
  const suites = document["testsuites"];
  if (suites !== undefined) return typeof suites === "object" && suites !== null ? (suites as XmlNode) : "";
  // surefire writes a single <testsuite> as the root.
  const suite = document["testsuite"];
  if (Array.isArray(suite) && suite.length === 1) return { testsuite: suite };
  const tags = Object.keys(document).filter((key) => !key.startsWith("?") && key !== "#text");
  throw new JunitError(`not a JUnit report: the root element is <${tags[0] ?? "nothing"}>, expected <testsuites> or <testsuite>`);
}

function walk(node: XmlNode, suites: Suite[], builder: Builder): void {
  for (const testcase of children(node, "testcase")) addCase(testcase, suites, builder);
  for (const suite of children(node, "testsuite")) {
    walk(suite, [...suites, { name: attribute(suite, "name") ?? "", file: attribute(suite, "file"), tests: attribute(suite, "tests") }], builder);
  }
}

function addCase(testcase: XmlNode, suites: Suite[], builder: Builder): void {
  const name = attribute(testcase, "name") ?? "";
  const classname = attribute(testcase, "classname") ?? "";
  const outcome = caseOutcome(testcase);
  const load = loadEntry(testcase, name, classname, outcome.result, outcome.message, suites.at(-1), builder.resolve);
  if (load !== null) {
    if (load.counted) builder.counted++;
    if (load.failed) builder.loadErrors.add(load.file);
    if (load.failed && load.message !== undefined && !builder.loadErrorMessages.has(load.file)) builder.loadErrorMessages.set(load.file, load.message);
    return;
  }
  builder.counted++;

  const place = locate(testcase, classname, suites, builder);
  const suitePath = suites
    .map((suite) => suite.name)
    .filter((suiteName) => suiteName !== "" && !namesTheClass(suiteName, classname) && !CONTAINER_SUITES.has(suiteName)
      && suiteName !== place.file && !(looksLikePath(suiteName) && resolveReportedPath(suiteName, builder.resolve) !== null)
      // jest-junit's default names already begin with the describe titles.
      && !name.startsWith(`${suiteName} `));
  const shownName = name === "" ? "(unnamed)" : name;
  const id = [place.prefix, ...place.inner, ...suitePath, shownName].join("::");
  if (outcome.flaky) builder.notes.add(`${id} passed only after a retry (flaky)`);
  const result: TestCaseResult = {
    id, file: place.file, name: shownName, result: outcome.result,
    ...(outcome.flavour !== undefined ? { flavour: outcome.flavour } : {}),
    ...(outcome.message !== undefined ? { message: outcome.message } : {}),
  };
  const earlier = builder.cases.get(id);
  if (earlier === undefined) {
    builder.cases.set(id, result);
    return;
  }
  // pytest writes a test a second time when its teardown errors after the call: the same test, not
  // another copy, so its last copy takes the worse result. Any other repeat is one more copy (a
  // `test.each` title without a placeholder); the worst result stands for the id, the copies are kept.
  const copies = earlier.copies ?? [copyOf(earlier)];
  if (result.result === "errored" && result.message?.startsWith("failed on teardown") === true) {
    const last = copies.length - 1;
    copies[last] = worse(copies[last] ?? copyOf(result), copyOf(result));
  } else {
    builder.duplicates.add(id);
    copies.push(copyOf(result));
  }
  const { copies: _drop, ...worst } = worse(earlier, result);
  builder.cases.set(id, copies.length > 1 ? { ...worst, copies } : worst);
}

function copyOf(c: TestCaseResult | CopyOutcome): CopyOutcome {
  return {
    result: c.result,
    ...(c.flavour !== undefined ? { flavour: c.flavour } : {}),
    ...(c.message !== undefined ? { message: c.message } : {}),
  };
}

interface Place {
  file: string | null;
  /** What the id starts with: the file, else the classname. */
  prefix: string;
  inner: string[];
}

function locate(testcase: XmlNode, classname: string, suites: Suite[], builder: Builder): Place {
  const { resolve, notes } = builder;
  const fileAttribute = attribute(testcase, "file") ?? [...suites].reverse().find((s) => s.file !== undefined)?.file;
  if (fileAttribute !== undefined) {
    const file = resolveReportedPath(fileAttribute, resolve);
    if (file !== null) {
      const dotted = resolveDottedClassname(classname, resolve);
      return { file, prefix: file, inner: dotted?.file === file ? dotted.inner : [] };
    }
    notes.add(`file ${fileAttribute} named by the report is not in the tree`);
  }
  if (looksLikePath(classname)) {
    const file = resolveReportedPath(classname, resolve);
    if (file !== null) return { file, prefix: file, inner: [] };
  }
  const dotted = resolveDottedClassname(classname, resolve);
  if (dotted !== null) return { file: dotted.file, prefix: dotted.file, inner: dotted.inner };
  for (const suite of [...suites].reverse()) {
    const file = looksLikePath(suite.name) ? resolveReportedPath(suite.name, resolve) : null;
    if (file !== null) return { file, prefix: file, inner: [] };
  }
  const fallback = classname !== "" ? classname : (suites.at(-1)?.name ?? "");
  notes.add(fallback === ""
    ? "some testcases name neither a classname nor a file; their ids are the bare test names"
    : `could not map classname ${fallback} to a file in the tree; its test ids begin with the classname`);
  return { file: null, prefix: fallback === "" ? "(unknown)" : fallback, inner: [] };
}

// surefire, go-junit-report and nextest name the suite after the class, package or binary.
function namesTheClass(suiteName: string, classname: string): boolean {
  return classname === suiteName || (classname.startsWith(suiteName) && /^[.$/:]/.test(classname.slice(suiteName.length)));
}

function cached(resolve: ResolveFile): ResolveFile {
  const seen = new Map<string, boolean>();
  return (candidate, kind = "file") => {
    const key = `${kind}:${candidate}`;
    let known = seen.get(key);
    if (known === undefined) {
      known = resolve(candidate, kind);
      seen.set(key, known);
    }
    return known;
  };
}
