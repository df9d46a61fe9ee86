// Runs vitest for the gate, so that the gate's canaries run inside every test file:
//   node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT" [vitest arguments...]
// - vitest comes from the tree's node_modules, else from the toolchain's; its arguments are read by
//   vitest's own parser and it starts as its CLI would (vitest/node's startVitest);
// - the setup file $RANEX_VITEST_SETUP names (src/runners/canary-in-file.ts) is added to the root
//   project's setupFiles after the configuration's own, through a plugin (vitest 4's CLI has no flag
//   for it): its `configureVitest` hook from vitest 3.1 on, and before 3.1 (which has no such hook) its
//   vite `config` hook, whose `test.setupFiles` vite appends to the configuration's and vitest reads
//   once every plugin's config is merged. The variable is removed before vitest starts, so no test
//   sees it. A configuration with projects of its own (vitest 3.2's `projects`, a `workspace` file or
//   key) gets no canaries (only the root project's files would), which it says on stderr;
// - the PR's own runs (issue 22) list whole test files, with RANEX_SELECT_BY=file (./select-files.cjs):
//   they are vitest's filters, as absolute paths, which only narrow what the configuration includes.
//   A command with filters of its own is refused (the files would add to its filters);
// - tests.stable's repeats and diff.needed's mutants list test ids, `<file>::<name>`, one a line, in
//   $RANEX_SELECT_FILE (no RANEX_SELECT_BY): their files become vitest's filters, in place of the
//   command's own (every listed test came from a run of this command, so its files are among them),
//   and their names its test name pattern. vitest matches that pattern against a test's full name,
//   whose form changed between majors (the titles joined by spaces, before vitest 2 after the file's
//   path, from vitest 5 by " > "), and its JUnit report joins them by " > ": the pattern takes any of
//   these, so it may run a few more tests than listed, never fewer. A listed test the pattern missed
//   is reported skipped, which the gate does not take for its outcome (src/measure/select.ts).
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, like the other launchers: vitest is found by require.resolve */
const { existsSync, readdirSync, readFileSync } = require("node:fs");
const { dirname, join, resolve } = require("node:path");
const { pathToFileURL } = require("node:url");
const { cleanArgv, findOrExit } = require("./find-package.cjs");
const { refuse, selectedFiles } = require("./select-files.cjs");

const canarySetup = process.env.RANEX_VITEST_SETUP;
delete process.env.RANEX_VITEST_SETUP;
const [node] = findOrExit(["vitest/node"]);
const own = cleanArgv();
const selected = selectedFiles();
const byId = selected === null ? idSelection() : null;

const NO_CANARIES = "ranex: vitest runs projects of its own: the gate's canaries are not added to their test files\n";

/** vitest's version as its package.json says, from the path of `vitest/node` (its dist folder). */
function versionOf(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, "package.json");
    if (!existsSync(pkg)) continue;
    const parsed = JSON.parse(readFileSync(pkg, "utf8"));
    if (parsed.name === "vitest") return String(parsed.version);
  }
  return "0.0.0";
}
const [major, minor] = versionOf(node).split(".").map(Number);
const hooked = major > 3 || (major === 3 && minor >= 1);

// A workspace before vitest 3.2's `projects`: a workspace file at the root, or the configuration's `workspace`.
const WORKSPACE_FILE = /^vitest\.(?:workspace|projects)\.(?:[cm]?[jt]s|json)$/;
const workspaceAt = (root) => {
  try {
    return readdirSync(root ?? process.cwd()).some((name) => WORKSPACE_FILE.test(name));
  } catch {
    return false; // a root vitest cannot read either: vitest says so itself
  }
};

const canaries = hooked ? {
  name: "ranex-canaries",
  configureVitest({ vitest, project }) {
    const projects = Array.isArray(vitest.config.projects) && vitest.config.projects.length > 0;
    if (projects || vitest.config.workspace !== undefined || workspaceAt(vitest.config.root)) {
      process.stderr.write(NO_CANARIES);
      return;
    }
    project.config.setupFiles.push(canarySetup);
  },
} : {
  name: "ranex-canaries",
  config(config) {
    if (config.test?.workspace !== undefined || workspaceAt(config.root)) {
      process.stderr.write(NO_CANARIES);
      return undefined;
    }
    // vite 6 (vitest 3.0) serves no file outside the allowed folders, and the gate's folder is outside the tree.
    return { test: { setupFiles: [canarySetup] }, server: { fs: { allow: [dirname(canarySetup)] } } };
  },
};

/** The listed test ids as vitest's filters and name pattern, or null when this run lists none. */
function idSelection() {
  const list = process.env.RANEX_SELECT_FILE;
  delete process.env.RANEX_SELECT_FILE;
  delete process.env.RANEX_SELECT_PATTERN;
  if (list === undefined || list === "") return null;
  const ids = readFileSync(list, "utf8").split("\n").filter((line) => line.includes("::"));
  if (ids.length === 0) return null;
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  // The file is what precedes the first `::` (a title may hold `::`, a path does not).
  const files = [...new Set(ids.map((id) => resolve(process.cwd(), id.slice(0, id.indexOf("::")))))].sort();
  // A copy of a shared name is listed as `<id>#<n>` (the gate's own suffix): its name is also matched without it.
  const names = [...new Set(ids.flatMap((id) => {
    const name = id.slice(id.indexOf("::") + 2);
    return /#\d+$/.test(name) ? [name, name.replace(/#\d+$/, "")] : [name];
  }))].map((name) => name.split(" > ").map(escape).join("(?: > | )"));
  return { files, pattern: `^(?:.* )?(?:${names.join("|")})$` };
}

async function main() {
  const vitest = await import(pathToFileURL(node).href);
  if (typeof vitest.parseCLI !== "function") {
    process.stderr.write(`ranex: vitest ${versionOf(node)} has no parseCLI (vitest 1.3 brought it), which the gate's launcher reads the command with: upgrade vitest, or run vitest's own command (node_modules/.bin/vitest run ...), which gets no canaries inside the test files\n`);
    process.exit(1);
  }
  const parsed = vitest.parseCLI(["vitest", ...own]);
  const { options } = parsed;
  let { filter } = parsed;
  if (selected !== null) {
    if (filter.length > 0) refuse(selected, `the vitest command names filters of its own (${filter.join(" ")}): the PR's new files would add to them`);
    filter = [...selected.files].sort();
  } else if (byId !== null) {
    filter = byId.files;
    options.testNamePattern = byId.pattern;
  }
  const plugins = canarySetup === undefined || canarySetup === "" ? [] : [canaries];
  const ctx = await vitest.startVitest("test", filter, options, { plugins });
  if (!ctx.shouldKeepServer()) await ctx.exit();
}

main().catch((err) => {
  process.stderr.write(`ranex: vitest failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
