// Runs vitest for the gate, so that the gate's canaries run inside every test file:
//   node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT" [vitest arguments...]
// - vitest comes from the tree's node_modules, else from the toolchain's; its arguments are read by
//   vitest's own parser and it starts as its CLI would (vitest/node's startVitest);
// - the setup file $RANEX_VITEST_SETUP names (src/runners/canary-vitest.ts) is added to the root
//   project's setupFiles after the configuration's own, through a plugin (vitest 4's CLI has no flag
//   for it). The variable is removed before vitest starts, so no test sees it. A configuration with
//   projects of its own gets no canaries (only the root project's files would), which it says on stderr;
// - the PR's own runs (issue 22) list whole test files, with RANEX_SELECT_BY=file (./select-files.cjs):
//   they are vitest's filters, as absolute paths, which only narrow what the configuration includes.
//   A command with filters of its own is refused (the files would add to its filters).
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, like the other launchers: vitest is found by require.resolve */
const { pathToFileURL } = require("node:url");
const { cleanArgv, findOrExit } = require("./find-package.cjs");
const { refuse, selectedFiles } = require("./select-files.cjs");

const canarySetup = process.env.RANEX_VITEST_SETUP;
delete process.env.RANEX_VITEST_SETUP;
const [node] = findOrExit(["vitest/node"]);
const own = cleanArgv();
const selected = selectedFiles();

const canaries = {
  name: "ranex-canaries",
  configureVitest({ vitest, project }) {
    if (Array.isArray(vitest.config.projects) && vitest.config.projects.length > 0) {
      process.stderr.write("ranex: vitest runs projects of its own: the gate's canaries are not added to their test files\n");
      return;
    }
    project.config.setupFiles.push(canarySetup);
  },
};

async function main() {
  const vitest = await import(pathToFileURL(node).href);
  const parsed = vitest.parseCLI(["vitest", ...own]);
  const { options } = parsed;
  let { filter } = parsed;
  if (selected !== null) {
    if (filter.length > 0) refuse(selected, `the vitest command names filters of its own (${filter.join(" ")}): the PR's new files would add to them`);
    filter = [...selected.files].sort();
  }
  const plugins = canarySetup === undefined || canarySetup === "" ? [] : [canaries];
  const ctx = await vitest.startVitest("test", filter, options, { plugins });
  if (!ctx.shouldKeepServer()) await ctx.exit();
}

main().catch((err) => {
  process.stderr.write(`ranex: vitest failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
