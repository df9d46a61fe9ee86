// Runs jest for the gate so that its report names each test's file and the tests see a clean argv.
// `ranex init` writes it for jest repositories:
//   node "$RANEX_REPORTERS/jest-run.cjs" [jest arguments...]
// - jest and jest-junit come from the tree's node_modules, else from the toolchain's;
// - jest-junit writes to $RANEX_JUNIT with a `file` attribute on every test case, and names each
//   file's suite by its path: by default it takes the first test's describe title ("undefined" for a
//   test outside any describe), which would enter every id of that file (`file::undefined::title`);
//   a path is recognised as the file and left out, so ids are `<file>::<describe titles> <title>`;
// - a test file that fails to run (a syntax error, a missing module, a throw at import) is reported:
//   by default jest-junit leaves it out, and a file that cannot load would look like one with no tests;
// - jest runs tests in this very process when it runs in band, and tests that read process.argv
//   would see jest's flags (`--ci`): argv is reset to [node, this file] before jest starts;
// - the gate can run only some tests (tests.stable's repeats, diff.needed's mutants): it lists their
//   ids, `<file>::<full name>`, one a line, in $RANEX_SELECT_FILE. Only those files run
//   (--runTestsByPath), and in them only the tests whose full name (describe titles and title joined
//   by spaces, what jest's --testNamePattern is matched against) is exactly one listed;
// - the PR's own runs (issue 22) list whole test files instead, with RANEX_SELECT_BY=file
//   (./select-files.cjs): they are given to jest as test path patterns, each its absolute path
//   anchored and escaped, so jest's configuration still decides which of them are test files. A
//   command that names test paths of its own is refused (patterns would add to its paths, not narrow them);
// - the gate's canaries run inside every test file (src/runners/canary-in-file.ts): the setup file
//   $RANEX_JEST_SETUP names is added to jest's setupFilesAfterEnv after the configuration's own (the
//   flag replaces the configuration's list, so the launcher reads it first). The variable is removed
//   before jest starts, so no test sees it. Every file then has failing tests, so a configured
//   `bail` is turned off (it would stop after the first file). A configuration of several projects gets no canaries
//   (each project's list would be replaced by one), which the launcher says on stderr.
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: jest is loaded by require.resolve */
const { dirname } = require("node:path");
const { cleanArgv, findOrExit } = require("./find-package.cjs");
const { anchored, refuse, selectedFiles } = require("./select-files.cjs");

const canarySetup = process.env.RANEX_JEST_SETUP;
delete process.env.RANEX_JEST_SETUP;

const [jest, junit] = findOrExit(["jest", "jest-junit"]);
process.env.JEST_JUNIT_OUTPUT_FILE = process.env.RANEX_JUNIT;
process.env.JEST_JUNIT_ADD_FILE_ATTRIBUTE = "true";
process.env.JEST_JUNIT_SUITE_NAME = "{filepath}";
process.env.JEST_JUNIT_REPORT_TEST_SUITE_ERRORS = "true";
const own = cleanArgv();
const files = selectedFiles();
const args = ["--ci", "--passWithNoTests", "--reporters=default", `--reporters=${junit}`, ...own, ...(files === null ? selection() : ["--", ...[...files.files].sort().map(anchored)])];

/** Refuses a file selection when the command chooses its own test files (by jest's own reading of its arguments). */
async function checkOwnPaths() {
  if (files === null) return;
  const argv = await require(jest).buildArgv(own);
  const chooses = ["testPathPattern", "testPathPatterns", "runTestsByPath", "findRelatedTests", "onlyChanged", "changedSince", "lastCommit", "selectProjects", "testMatch", "testRegex", "roots"]
    .filter((key) => argv[key] !== undefined && argv[key] !== false && !(Array.isArray(argv[key]) && argv[key].length === 0));
  if (argv._.length > 0 || chooses.length > 0) refuse(files, `the jest command chooses its own test files (${[...argv._, ...chooses].join(", ")}): the PR's new files would add to them`);
}

/** The arguments that run only the tests listed in $RANEX_SELECT_FILE; none when nothing is listed. */
function selection() {
  const list = process.env.RANEX_SELECT_FILE;
  if (list === undefined || list === "") return [];
  const ids = require("node:fs").readFileSync(list, "utf8").split("\n").filter((line) => line.includes("::"));
  if (ids.length === 0) return [];
  // The file is what precedes the first `::` (a title may hold `::` itself, a path does not).
  const files = [...new Set(ids.map((id) => id.slice(0, id.indexOf("::"))))];
  // A copy of a shared name is listed as `<id>#<n>` (the gate's own suffix): its name is also matched without it.
  const names = [...new Set(ids.flatMap((id) => {
    const name = id.slice(id.indexOf("::") + 2);
    return /#\d+$/.test(name) ? [name, name.replace(/#\d+$/, "")] : [name];
  }))];
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  // The report's ids are trimmed, jest's full names are not (an empty describe title leaves a leading
  // space, a title may end in one): spaces around the name are let through, so the filter never misses.
  return [`--testNamePattern=^\\s*(?:${names.map(escape).join("|")})\\s*$`, "--runTestsByPath", ...files];
}

/** The arguments that add the gate's setup file after the configuration's own; none when not asked or not possible. */
async function canaryArgs() {
  if (canarySetup === undefined || canarySetup === "") return [];
  try {
    const cli = require.resolve("jest-cli", { paths: [dirname(jest)] });
    const { readConfigs } = require(require.resolve("jest-config", { paths: [dirname(cli)] }));
    const argv = await require(jest).buildArgv(args);
    const { configs, globalConfig } = await readConfigs(argv, argv.projects ?? [process.cwd()]);
    if (configs.length !== 1) {
      process.stderr.write(`ranex: jest runs ${configs.length} projects: the gate's canaries are not added to their test files\n`);
      return [];
    }
    // Every file now fails (its must-fail canaries): a configured `bail` would stop after the first.
    const bail = globalConfig.bail > 0 && !args.some((arg) => /^--(?:no-)?bail\b|^-b$/.test(arg)) ? ["--no-bail"] : [];
    return [...bail, ...[...configs[0].setupFilesAfterEnv, canarySetup].map((file) => `--setupFilesAfterEnv=${file}`)];
  } catch (err) {
    process.stderr.write(`ranex: jest's configuration could not be read, so the gate's canaries are not added: ${err instanceof Error ? err.message : String(err)}\n`);
    return [];
  }
}

checkOwnPaths().then(canaryArgs).then((setup) => require(jest).run([...setup, ...args])).catch((err) => {
  process.stderr.write(`ranex: jest failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
