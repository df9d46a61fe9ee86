// Runs mocha for the gate: mocha-junit-reporter writes $RANEX_JUNIT (each suite with its file), and
// the tests, which mocha runs in this very process, see a clean process.argv (no `--reporter ...`).
// `ranex init` writes it for mocha repositories:
//   node "$RANEX_REPORTERS/mocha-run.cjs" [mocha arguments...]
// mocha's own configuration (.mocharc.*, package.json "mocha") is read as usual.
//
// The canary (issue 22): when the gate gives this run one ($RANEX_MOCHA_CANARY, a read-only file of
// the gate's own), it is loaded with `--file` before the spec files, so it is a test of the root
// suite that fails through mocha's own assertion path. mocha refuses `--file` in parallel mode, so a
// parallel configuration gets none (mocha-junit-reporter cannot report a parallel run either).
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: mocha is loaded by require.resolve */
const { cleanArgv, findOrExit } = require("./find-package.cjs");

const [cli, junit, options] = findOrExit(["mocha/lib/cli/cli.js", "mocha-junit-reporter", "mocha/lib/cli/options.js"]);
process.env.MOCHA_FILE = process.env.RANEX_JUNIT;
const own = cleanArgv();
const canary = process.env.RANEX_MOCHA_CANARY;
let parallel = false;
try {
  parallel = require(options).loadOptions([...own]).parallel === true;
} catch {
  parallel = false; // mocha itself reports a configuration it cannot read
}
const withCanary = canary !== undefined && canary !== "" && !parallel ? ["--file", canary] : [];
const args = ["--reporter", junit, "--reporter-option", `mochaFile=${process.env.RANEX_JUNIT}`, "--reporter-option", "includePending=true", ...withCanary, ...own];
require(cli).main(args);
