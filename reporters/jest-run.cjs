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
//   would see jest's flags (`--ci`): argv is reset to [node, this file] before jest starts.
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: jest is loaded by require.resolve */
const { cleanArgv, findOrExit } = require("./find-package.cjs");

const [jest, junit] = findOrExit(["jest", "jest-junit"]);
process.env.JEST_JUNIT_OUTPUT_FILE = process.env.RANEX_JUNIT;
process.env.JEST_JUNIT_ADD_FILE_ATTRIBUTE = "true";
process.env.JEST_JUNIT_SUITE_NAME = "{filepath}";
process.env.JEST_JUNIT_REPORT_TEST_SUITE_ERRORS = "true";
const args = ["--ci", "--passWithNoTests", "--reporters=default", `--reporters=${junit}`, ...cleanArgv()];
require(jest).run(args).catch((err) => {
  process.stderr.write(`ranex: jest failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
