// Runs mocha for the gate: mocha-junit-reporter writes $RANEX_JUNIT (each suite with its file), and
// the tests, which mocha runs in this very process, see a clean process.argv (no `--reporter ...`).
// `ranex init` writes it for mocha repositories:
//   node "$RANEX_REPORTERS/mocha-run.cjs" [mocha arguments...]
// mocha's own configuration (.mocharc.*, package.json "mocha") is read as usual.
//
// The PR's own runs (issue 22): with RANEX_SELECT_BY=file, $RANEX_SELECT_FILE lists test files, one a
// line, and only those among the files mocha's own spec and options collect run (mocha's file
// collection is wrapped: the --file setup files stay). A listed file mocha does not collect does not
// run, so its run reports nothing of it and the gate runs the whole suite instead.
//
// The canary (issues 22 and 19) is a test file the gate writes beside the tree's own, under a fresh
// name each run: mocha collects it by its own spec, and nothing here or in the environment names it.
// $RANEX_MOCHA_GUARD names the gate's registration watch (issue 19), deleted before mocha starts.
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: mocha is loaded by require.resolve */
const { cleanArgv, findOrExit } = require("./find-package.cjs");

const [cli, junit] = findOrExit(["mocha/lib/cli/cli.js", "mocha-junit-reporter"]);
const { keepOnly, selectedFiles } = require("./select-files.cjs");

const selected = selectedFiles();
if (selected !== null) {
  // Before mocha's CLI loads: its run helpers take collect-files' export when they load.
  const { dirname, join, resolve } = require("node:path");
  const collect = join(dirname(cli), "collect-files.js");
  const collectFiles = require(collect);
  require.cache[collect].exports = (params) => {
    const found = collectFiles(params);
    const setup = new Set((params?.file ?? []).map((f) => resolve(f)));
    const keep = (files) => files.filter((f) => setup.has(f) || keepOnly(selected, f));
    return Array.isArray(found) ? keep(found) : { ...found, files: keep(found.files) };
  };
}
// The registration watch (src/runners/mocha-guard.ts), before mocha loads anything of the tree; the
// variable that names it goes at once, so no test sees it.
const guard = process.env.RANEX_MOCHA_GUARD;
delete process.env.RANEX_MOCHA_GUARD;
if (guard !== undefined && guard !== "") require(guard).install(cli);
process.env.MOCHA_FILE = process.env.RANEX_JUNIT;
const own = cleanArgv();
const args = ["--reporter", junit, "--reporter-option", `mochaFile=${process.env.RANEX_JUNIT}`, "--reporter-option", "includePending=true", ...own];
require(cli).main(args);
