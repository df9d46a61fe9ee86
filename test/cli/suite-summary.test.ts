import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { firstProblem, leaveOutFix } from "../../src/cli/suite-summary.js";
import { parseJunit } from "../../src/measure/junit.js";
import type { SuiteRun } from "../../src/measure/report-types.js";
import type { Policy } from "../../src/policy/schema.js";

// The first problem `ranex init` and `ranex tests` print, read off a real jest report
// (test/measure/fixtures/junit/jest-load-error.xml) in which test files failed to run.
const XML = readFileSync(join(import.meta.dirname, "..", "measure", "fixtures", "junit", "jest-load-error.xml"), "utf8");
const TREE = new Set(["README.md", "test/ok.test.js", "test/syntax.test.js", "test/missing.test.js", "test/throws.test.js", "test/empty.test.js"]);
const policy = { toolchain: { path: [] } } as unknown as Policy;

function suite(keepCases: boolean): SuiteRun {
  const report = parseJunit(XML, (path) => TREE.has(path));
  const command = {
    exitCode: 1, signal: null, timedOut: false, durationMs: 900, outputTail: "Test Suites: 5 failed, 5 total\nRan all test suites.\n",
    outputBytes: 60, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null,
  };
  return { label: "head", setup: null, command, report: keepCases ? report : { ...report, cases: [] }, reportError: null };
}

describe("the first problem of a jest run whose test files failed to run", () => {
  it("names the files and each one's reason when other tests ran", () => {
    expect(firstProblem({ suite: suite(true), policy })?.problem).toMatch(new RegExp([
      "^4 test file\\(s\\) failed to load on HEAD: test/empty\\.test\\.js \\(Your test suite must contain at least one test\\.\\), ",
      "test/missing\\.test\\.js \\(Cannot find module '\\./nope\\.js' from 'test/missing\\.test\\.js'\\), ",
      "test/syntax\\.test\\.js \\(SyntaxError: \\S+/test/syntax\\.test\\.js: Unexpected token \\(2:0\\)\\), …$",
    ].join("")));
  });

  it("says every judgment FAILs until they load, and how jest leaves them out", () => {
    const jest = { tests: { command: 'node "$RANEX_REPORTERS/jest-run.cjs" --ci' }, toolchain: { path: [] } } as unknown as Policy;
    expect(firstProblem({ suite: suite(true), policy: jest })?.fix).toBe(
      "make them load, or leave them out: add --testPathIgnorePatterns 'test/empty\\.test\\.js' 'test/missing\\.test\\.js' 'test/syntax\\.test\\.js' to tests.command (until they load, every judgment FAILs tests.regression: a file that cannot load on HEAD has no baseline)");
  });

  it("names the first reason the report gave when no test ran", () => {
    const found = firstProblem({ suite: suite(false), policy });
    expect(found?.problem).toMatch(/^4 test file\(s\) failed to load and no test ran: test\/empty\.test\.js, test\/missing\.test\.js, test\/syntax\.test\.js, test\/throws\.test\.js; first error: test\/empty\.test\.js: Your test suite must contain at least one test\.; last output: /);
  });
});

// Found on pypa/packaging (issue 22): every test file failed to import hypothesis, a test dependency
// init had not installed, and the fix line spoke of a src layout, though the command already put src
// on PYTHONPATH. The report is pytest 8's, as it writes a collection error.
describe("the first problem of a pytest run whose test files import a module the sandbox has not", () => {
  const xml = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="0" skipped="0" tests="1" time="0.5">` +
    `<testcase classname="" name="tests.test_ranges" time="0.000"><error message="collection failure">ImportError while importing test module '/work/tests/test_ranges.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
tests/test_ranges.py:7: in &lt;module&gt;
    import hypothesis.strategies
E   ModuleNotFoundError: No module named 'hypothesis'</error></testcase></testsuite></testsuites>`;
  const run = (command: string) => {
    const report = parseJunit(xml, (path) => path === "tests/test_ranges.py");
    const result = {
      exitCode: 2, signal: null, timedOut: false, durationMs: 900, outputTail: "ERROR tests/test_ranges.py\n!!! Interrupted: 1 error during collection !!!\n",
      outputBytes: 60, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null,
    };
    const withCommand = { toolchain: { path: [] }, tests: { command } } as unknown as Policy;
    return firstProblem({ suite: { label: "head", setup: null, command: result, report, reportError: null }, policy: withCommand });
  };

  it("names the module and its install before the package's own path, and no src layout the command already has", () => {
    const found = run('PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest --junitxml="$RANEX_JUNIT" tests');
    expect(found?.problem).toContain("first error: tests/test_ranges.py: ModuleNotFoundError: No module named 'hypothesis'");
    expect(found?.fix).toMatch(/^'hypothesis' is not installed in the sandbox: install it in tests\.setup, .*dependency groups/);
    expect(found?.fix).not.toContain("src layout");
    // Without a PYTHONPATH in the command, the src layout comes first, as before, and the module is named.
    expect(run('python3 -m pytest --junitxml="$RANEX_JUNIT" tests')?.fix).toMatch(/^make the package importable in the sandbox: 'hypothesis' is not there; for a src layout put PYTHONPATH=src .*install it in tests\.setup/);
  });
});

// Found on yargs/yargs-parser: puppeteer's postinstall could not reach its browser host from setup
// (which reaches the registries only), and the fix line said the *run* had tried the network.
describe("the first problem of a setup that reached for a host that is no registry", () => {
  it("says the setup's download went elsewhere, not that the run used the network", () => {
    const setup = {
      exitCode: 1, signal: null, timedOut: false, durationMs: 900, outputBytes: 60, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null,
      outputTail: "npm error Error: getaddrinfo EAI_AGAIN storage.googleapis.com\nnpm error     at async downloadBrowsers (file:///work/node_modules/puppeteer/lib/esm/puppeteer/node/install.js:84:9)\n",
    };
    const found = firstProblem({ suite: { label: "head", setup, command: null, report: null, reportError: null }, policy });
    expect(found?.problem).toContain("setup exited with 1");
    expect(found?.fix).toMatch(/^setup reached for a host that is not a package registry .*PUPPETEER_SKIP_DOWNLOAD=1/);
  });
});

// Found on zalando/problem (issue 22): a Maven setup that could not resolve a dependency was told to
// "add it to devDependencies". The output is what Maven 3.8 printed (test/cli/fixtures/maven-missing-*.txt).
describe("the first problem of a Maven build whose dependency cannot be had", () => {
  const fixture = (name: string): string => readFileSync(join(import.meta.dirname, "fixtures", `maven-missing-${name}.txt`), "utf8");
  const result = (outputTail: string, exitCode: number) => ({
    exitCode, signal: null, timedOut: false, durationMs: 900, outputBytes: outputTail.length, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null, outputTail,
  });

  it("a setup that could not download it gets Maven's fix, not npm's", () => {
    const found = firstProblem({ suite: { label: "head", setup: result(fixture("online"), 1), command: null, report: null, reportError: null }, policy });
    expect(found?.fix).toMatch(/^Maven could not download a dependency or plugin in setup: .*run mvn -B test in a fresh clone/);
    expect(found?.fix).not.toContain("devDependencies");
  });

  it("an offline run that lacks an artifact says the setup did not fetch it", () => {
    const found = firstProblem({ suite: { label: "head", setup: null, command: result(fixture("offline"), 1), report: null, reportError: "no JUnit report at $RANEX_JUNIT: the test command wrote none" }, policy });
    expect(found?.fix).toMatch(/^Maven ran offline and needed an artifact the setup did not fetch/);
  });
});

// A go.mod whose go line is newer than the machine's Go (issue 22): init now names the toolchain,
// which setup fetches; a policy written before that, or a version no proxy serves, gets a fix line
// that says so, not a guess about devDependencies. The outputs are go 1.26.8's own.
describe("the first problem of a Go setup whose go.mod asks for a newer Go", () => {
  const failedSetup = (outputTail: string): SuiteRun => ({
    label: "head", command: null, report: null, reportError: null,
    setup: { exitCode: 1, signal: null, timedOut: false, durationMs: 900, outputBytes: 60, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null, outputTail },
  });

  it("under GOTOOLCHAIN=local: run init again, or name a newer Go", () => {
    const found = firstProblem({ suite: failedSetup("go: go.mod requires go >= 1.27 (running go 1.26.8; GOTOOLCHAIN=local)\n"), policy });
    expect(found?.fix).toBe("go.mod asks for Go 1.27, newer than the sandbox's go 1.26.8: run ranex init again (it names the toolchain in GOTOOLCHAIN, which setup fetches from the Go module proxy), or name a newer Go's bin folder in toolchain.path");
  });

  it("a toolchain the module proxy does not serve", () => {
    const proxied = "go: downloading go1.99.0 (linux/amd64)\ngo: download go1.99.0: golang.org/toolchain@v0.0.1-go1.99.0.linux-amd64: reading https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go1.99.0.linux-amd64.zip: 403 Forbidden\n\tserver response: This module version is not available.\n";
    const direct = "go: downloading go1.99.0 (linux/amd64)\ngo: download go1.99.0 for linux/amd64: toolchain not available\n";
    for (const output of [proxied, direct]) {
      expect(firstProblem({ suite: failedSetup(output), policy })?.fix).toBe("the Go module proxy has no go1.99.0 toolchain (go.mod's go or toolchain line asks for it): use a released Go version there, or install it and name its bin folder in toolchain.path");
    }
  });
});

// zalando/problem's own line (issue 22): a sibling module's SNAPSHOT the setup could not have.
describe("the first problem of a JVM setup that could not resolve a sibling module", () => {
  it("speaks of the build's dependencies and where setup can reach, not of devDependencies", () => {
    const outputTail = "[ERROR] Failed to execute goal on project jackson-datatype-problem: Could not resolve dependencies for project org.zalando:jackson-datatype-problem:jar:0.28.0-SNAPSHOT: Could not find artifact org.zalando:problem:jar:0.28.0-SNAPSHOT -> [Help 1]\n";
    const setup = { exitCode: 1, signal: null, timedOut: false, durationMs: 900, outputBytes: 60, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null, outputTail };
    const found = firstProblem({ suite: { label: "head", setup, command: null, report: null, reportError: null }, policy });
    expect(found?.fix).toMatch(/^Maven could not download a dependency or plugin in setup: .*a sibling module's SNAPSHOT must be built by the same reactor/);
    expect(found?.fix).not.toContain("devDependencies");
  });
});

// Found on google/gson: its test-jpms module's module-info.java never loads under `mvn test`, so
// every judgment FAILed tests.regression; init's line said only to run the suite by hand.
describe("how a suite leaves out the test files that cannot load on HEAD", () => {
  it("Maven: the modules that hold them, by -pl", () => {
    expect(leaveOutFix("mvn -B -o test", ["test-jpms/src/test/java/module-info.java"])).toMatch(/^make them load, or leave them out: add -pl '!test-jpms' \(the modules that hold them\) to tests\.command \(until they load, every judgment FAILs tests\.regression/);
    // A file of the root project cannot be left out by module.
    expect(leaveOutFix("mvn -B -o test", ["src/test/java/a/BrokenTest.java"])).toMatch(/^make them load, or leave them out of tests\.command/);
  });

  it("pytest: --ignore per file, quoted for the shell; vitest: --exclude", () => {
    expect(leaveOutFix('python3 -m pytest --junitxml="$RANEX_JUNIT" tests', ["tests/test_toml tests.py", "tests/test_b.py"])).toMatch(/^make them load, or leave them out: add --ignore='tests\/test_toml tests\.py' --ignore=tests\/test_b\.py to tests\.command/);
    expect(leaveOutFix('node "$RANEX_REPORTERS/vitest-run.cjs" run', ["src/a.spec.ts"])).toMatch(/^make them load, or leave them out: add --exclude src\/a\.spec\.ts to tests\.command/);
  });
});
