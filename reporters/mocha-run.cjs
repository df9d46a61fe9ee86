// Runs mocha for the gate: mocha-junit-reporter writes $RANEX_JUNIT (each suite with its file), and
// the tests, which mocha runs in this very process, see a clean process.argv (no `--reporter ...`).
// `ranex init` writes it for mocha repositories:
//   node "$RANEX_REPORTERS/mocha-run.cjs" [mocha arguments...]
// mocha's own configuration (.mocharc.*, package.json "mocha") is read as usual.
//
// The canary (issues 22 and 19) is a test file the gate writes beside the tree's own, under a fresh
// name each run: mocha collects it by its own spec, and nothing here or in the environment names it.
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: mocha is loaded by require.resolve */
const { cleanArgv, findOrExit } = require("./find-package.cjs");

const [cli, junit] = findOrExit(["mocha/lib/cli/cli.js", "mocha-junit-reporter"]);
process.env.MOCHA_FILE = process.env.RANEX_JUNIT;
const own = cleanArgv();
const args = ["--reporter", junit, "--reporter-option", `mochaFile=${process.env.RANEX_JUNIT}`, "--reporter-option", "includePending=true", ...own];
require(cli).main(args);
