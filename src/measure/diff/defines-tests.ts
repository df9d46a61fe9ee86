// Does a new file the test globs match define a test (issue 19, class 5)? A module named like a test
// that defines none (`src/pkg/test_vectors.py`) is code: the gate would otherwise leave it out of
// scope, diff.needed and the code scan, and keep it out of the runs that decide the verdict. Read by
// each runner's own conventions for what it collects; files that are not source (fixtures, data)
// stay test files.

const DEFINITIONS: readonly { suffix: RegExp; test: RegExp }[] = [
  // pytest: test functions and Test classes; unittest: TestCase subclasses.
  { suffix: /\.py$/, test: /^[ \t]*(?:async[ \t]+)?def[ \t]+test|^[ \t]*class[ \t]+Test|^[ \t]*class[ \t]+\w+[ \t]*\([^)]*TestCase/m },
  // node:test, jest, vitest, mocha, ava, tape, tap: a call of test/it/describe/suite (with .only,
  // .each, ...); node-tap's subtests are also `t.test(...)` or `tap.test(...)` on the root test.
  { suffix: /\.(?:[cm]?[jt]sx?)$/, test: /(?<![\w$.])(?:test|it|describe|suite|context|specify|bench|Deno\.test|t\s*\.\s*test|tap\s*\.\s*test)\s*(?:\.\s*[\w$]+\s*(?:\([^)]*\)\s*)?)*(?:`[^`]*`\s*)?\(/ },
  // go test: Test, Benchmark, Fuzz and Example functions.
  { suffix: /_test\.go$/, test: /^func[ \t]+(?:Test|Benchmark|Fuzz|Example)\w*[ \t]*\(/m },
];

/** True when the file is source of a language whose runner collects tests and it defines none. */
export function definesNoTest(path: string, text: string): boolean {
  const language = DEFINITIONS.find((d) => d.suffix.test(path));
  return language !== undefined && !language.test.test(text);
}

/** Whether a path is source a runner could collect tests from (only those are read). */
export function isTestSource(path: string): boolean {
  return DEFINITIONS.some((d) => d.suffix.test(path));
}
