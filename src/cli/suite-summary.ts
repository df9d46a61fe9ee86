import type { RunAt } from "../judge/run-at.js";
import { suiteProblem } from "../judge/run-at.js";
import type { SuiteRun, TestCaseResult, TestReport } from "../measure/report-types.js";
import { loadErrorReason, withLoadReason } from "../measure/tests/run-facts.js";
import { jvmDependencyFix } from "./jvm-fix.js";

// What `ranex init` and `ranex tests` print about one run of a policy's suite: the tests per file,
// duplicate ids, load errors, the timing, and the first problem with how to fix it.

export function seconds(ms: number | null): string {
  return ms === null ? "-" : `${(ms / 1000).toFixed(1)} s`;
}

export function testsPerFile(cases: readonly TestCaseResult[]): string[] {
  const byFile = new Map<string, TestCaseResult[]>();
  for (const c of cases) {
    const key = c.file ?? "(no file: the report names none)";
    byFile.set(key, [...(byFile.get(key) ?? []), c]);
  }
  return [...byFile.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([file, list]) => {
    const counts = new Map<string, number>();
    for (const c of list) counts.set(c.result, (counts.get(c.result) ?? 0) + 1);
    const parts = [...counts.entries()].map(([result, n]) => `${n} ${result}`).join(", ");
    return `${file}  ${list.length} (${parts})`;
  });
}

/** The first problem a try found and how to fix it; null when the suite ran and reported tests. */
export function firstProblem(run: Pick<RunAt, "suite" | "policy">): { problem: string; fix: string } | null {
  const { suite } = run;
  const problem = suiteProblem(suite);
  if (problem !== null) return { problem, fix: fixFor(suite, run.policy.toolchain.path) };
  const report = suite.report;
  if (report === null) return null;
  if (report.cases.length === 0 && report.loadErrors.length > 0) return nothingLoaded(suite, report, run.policy.tests?.command ?? "");
  if (report.cases.length === 0) {
    return { problem: "the command ran and its report holds no tests", fix: "check that tests.command is given the folders or files that hold the tests" };
  }
  if (report.loadErrors.length > 0) {
    const files = report.loadErrors.slice(0, 3).map((file) => withLoadReason(report, file));
    return {
      problem: `${report.loadErrors.length} test file(s) failed to load on HEAD: ${files.join(", ")}${report.loadErrors.length > 3 ? ", …" : ""}`,
      fix: leaveOutFix(run.policy.tests?.command ?? "", report.loadErrors),
    };
  }
  const fileless = report.cases.filter((c) => c.file === null).length;
  if (fileless > 0) {
    return { problem: `${fileless} test(s) have no file in the report`, fix: "use the reporter `ranex init` writes for this runner: without files, a PR's new test files cannot become targets" };
  }
  return null;
}

/**
 * What an owner does about test files that cannot load on HEAD, in the runner's own words (found on
 * google/gson: its test-jpms module's module-info.java never loads under `mvn test`, so every
 * judgment FAILed and init's line said only to run the suite by hand).
 */
export function leaveOutFix(command: string, files: readonly string[]): string {
  const until = "until they load, every judgment FAILs tests.regression: a file that cannot load on HEAD has no baseline";
  const shown = files.slice(0, 3);
  const add = (options: string): string => `make them load, or leave them out: add ${options} to tests.command (${until})`;
  if (/\bpytest\b/.test(command)) return add(shown.map((f) => `--ignore=${quoted(f)}`).join(" "));
  if (/\bmvnw?\b/.test(command)) {
    // Each file in a module's src/test (not the root project's): those modules can be left out.
    const modules = files.map((f) => f.split("/src/test/")[0] ?? "");
    if (files.every((f, i) => f.includes("/src/test/") && modules[i] !== "")) return add(`-pl '${[...new Set(modules)].map((m) => `!${m}`).join(",")}' (the modules that hold them)`);
  }
  if (/\bvitest\b|vitest-run/.test(command)) return add(shown.map((f) => `--exclude ${quoted(f)}`).join(" "));
  if (/\bjest\b|jest-run/.test(command)) return add(`--testPathIgnorePatterns ${shown.map((f) => quoted(f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join(" ")}`);
  return `make them load, or leave them out of tests.command (${until})`;
}

function quoted(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

// Every test file failed to import (a src layout not on the path, a package not installed): the
// report holds no tests, but saying only that sends people looking at tests.command's folders.
function nothingLoaded(suite: SuiteRun, report: TestReport, command: string): { problem: string; fix: string } {
  const files = report.loadErrors;
  const output = suite.command?.outputTail ?? "";
  const lines = output.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  // The report's own reason for a file first; else the most specific line of output: pytest says
  // "ImportError while importing …" before the module it missed.
  const reported = files.find((file) => loadErrorReason(report, file) !== undefined);
  const error = reported !== undefined ? `${reported}: ${loadErrorReason(report, reported)}`
    : [MISSING_MODULE, IMPORT_ERROR, /\b\w*(Error|Exception)\b/].map((p) => lines.find((l) => p.test(l))).find((l) => l !== undefined);
  const last = lines.slice(-3).join(" | ");
  const problem = [
    `${files.length} test file(s) failed to load and no test ran: ${files.slice(0, 5).join(", ")}${files.length > 5 ? ", …" : ""}`,
    error === undefined ? "" : `first error: ${error.slice(0, 200)}`,
    last === "" ? "" : `last output: ${last.slice(0, 400)}`,
  ].filter((p) => p !== "").join("; ");
  // `Cannot find module '../src/cli.js'`, `Cannot find module './nope.js' imported from …`: the tree's own file.
  if (error !== undefined && /Cannot find module '\.{1,2}\//.test(error)) {
    return { problem, fix: "a test file imports a file of the repository that is not there at this revision: restore the file, or (when the test file is not frozen) its import" };
  }
  const python = /No module named|ModuleNotFoundError|ImportError|\.py\b/.test(`${output}\n${files.join("\n")}`);
  const missing = python ? /No module named '([\w.]+)'/.exec(`${error ?? ""}\n${output}`)?.[1]?.split(".")[0] : undefined;
  if (missing !== undefined) return { problem, fix: missingPythonModule(missing, command) };
  const fix = python
    ? "make the package importable in the sandbox: for a src layout put PYTHONPATH=src before the command in tests.command (ranex init does when it sees one), or install it in tests.setup (pip install -e ., with setup_network: true); run the suite by hand in a fresh clone to see the import error"
    : "make the package importable in the sandbox: install its dependencies in tests.setup (npm ci, with setup_network: true) or name the toolchain that has them in toolchain.path; run the suite by hand in a fresh clone to see the import error";
  return { problem, fix };
}

/**
 * A module the tests import that the sandbox has not. pypa/packaging's `No module named 'hypothesis'`
 * (a test dependency, declared where init did not look) was answered with the src-layout fix, though
 * the command already put src on PYTHONPATH: the module is most often a package from the index.
 */
function missingPythonModule(module: string, command: string): string {
  const install = "install it in tests.setup, with setup_network: true (a package from the index: into .venv with the other test dependencies, which ranex init reads from requirements files and pyproject.toml's test extras and dependency groups; the repository's own: pip install -e .)";
  const byHand = "run the suite by hand in a fresh clone to see the import error";
  // The command already puts a folder on the path: the src-layout advice would not help.
  if (/\bPYTHONPATH=/.test(command)) {
    return `'${module}' is not installed in the sandbox: ${install}; when it is the repository's own package, the folder tests.command puts on PYTHONPATH must hold it; ${byHand}`;
  }
  return `make the package importable in the sandbox: '${module}' is not there; for a src layout put PYTHONPATH=src before the command in tests.command (ranex init does when it sees one), or ${install}; ${byHand}`;
}

const MISSING_MODULE = /No module named|Cannot find module|Cannot find package/;
const IMPORT_ERROR = /ModuleNotFoundError|ImportError|ERR_MODULE_NOT_FOUND/;

function fixFor(suite: SuiteRun, toolchain: readonly string[]): string {
  const output = `${suite.setup?.outputTail ?? ""}\n${suite.command?.outputTail ?? ""}`;
  const violation = suite.command?.violation ?? suite.setup?.violation ?? null;
  if (violation !== null && /toolchain\.path/.test(violation)) return "fix toolchain.path: every entry must be a directory on this machine";
  // Setup has the network, but only the package registries: a failure there is a download from elsewhere.
  if (suite.command === null && /EAI_AGAIN|ENOTFOUND|getaddrinfo|ECONNREFUSED|ETIMEDOUT/.test(output)) {
    return "setup reached for a host that is not a package registry (only the registries are reachable, and only with setup_network: true): a dependency's install script downloads from elsewhere (a browser, a prebuilt binary); skip that download in tests.setup with the package's own switch (ranex init writes PUPPETEER_SKIP_DOWNLOAD=1 and the like for the packages it knows)";
  }
  // go.mod asks for a newer Go than the sandbox's (src/runners/go-toolchain.ts).
  const goTooOld = /go\.mod requires go >= ([\w.]+) \(running go ([\w.]+); GOTOOLCHAIN=local\)/.exec(output);
  if (goTooOld !== null) {
    return `go.mod asks for Go ${goTooOld[1] ?? ""}, newer than the sandbox's go ${goTooOld[2] ?? ""}: run ranex init again (it names the toolchain in GOTOOLCHAIN, which setup fetches from the Go module proxy), or name a newer Go's bin folder in toolchain.path`;
  }
  // Go's own words (`toolchain not available`), or the module proxy's refusal as this machine's registry proxy gives it.
  const goMissing = /go: download (go[\w.]+)(?: for [\w/]+)?: (?:toolchain not available|golang\.org\/toolchain@\S+: reading \S+: (?:403|404|410)\b)/.exec(output);
  if (goMissing !== null) {
    return `the Go module proxy has no ${goMissing[1] ?? "such"} toolchain (go.mod's go or toolchain line asks for it): use a released Go version there, or install it and name its bin folder in toolchain.path`;
  }
  if (/EAI_AGAIN|ENOTFOUND|getaddrinfo/.test(output)) return "the run tried to reach the network, which only setup may (with setup_network: true); install everything in setup";
  // `/bin/sh: 1: vitest: not found`, `bash: vitest: command not found`, `No module named 'pytest'`.
  const notFound = /(?:^|: )([\w.-]+): (?:command )?not found|command not found: ([\w.-]+)|No module named '?([\w.]+)'?/m.exec(output);
  if (notFound !== null) {
    const what = notFound[1] ?? notFound[2] ?? notFound[3] ?? "a tool";
    return `${what} is not there in the sandbox: install it in tests.setup, declare it as a dependency, or name its directory in toolchain.path${toolchain.length === 0 ? " (ranex init --toolchain <dir>)" : ""}; 'ranex doctor --policy .github/ranex.yml' shows what the sandbox sees`;
  }
  const jvm = jvmDependencyFix(output, suite.command === null);
  if (jvm !== null) return jvm;
  if (/cannot be found from|Cannot find module|Could not resolve/.test(output)) return "a package the command needs is missing: add it to devDependencies (ranex init --add-deps) or to the toolchain";
  if (suite.command?.timedOut === true || suite.setup?.timedOut === true) return "raise tests.timeout, or run fewer tests";
  if (suite.command === null) return "setup failed: run it by hand in a fresh clone; with network, set setup_network: true";
  return "the command must write a JUnit XML report to $RANEX_JUNIT: run it by hand with RANEX_JUNIT=/tmp/junit.xml";
}

export function timingLine(run: RunAt): string {
  const parts = [`checkout ${seconds(run.timings.materialiseMs)}`];
  const installed = run.suite.deps?.installed;
  if (run.suite.deps?.hit === true) parts.push(`dependencies from cache${installed === undefined ? "" : ` (installed once in ${seconds(installed.ms)}${installed.on === "" ? "" : ` on ${installed.on}`})`}`);
  else if (run.timings.setupMs !== null) parts.push(`setup ${seconds(run.timings.setupMs)}${run.suite.deps !== undefined && run.suite.command !== null ? " (installed once, now cached)" : ""}`);
  parts.push(`tests ${seconds(run.timings.commandMs)}`);
  if (run.checks.length > 0) parts.push(`checks ${seconds(run.timings.checksMs)}`);
  return parts.join(", ");
}
