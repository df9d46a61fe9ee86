// Shared by the gate's runner launchers: the PR's own runs (issue 22) run only its new test files.
// With RANEX_SELECT_BY=file, $RANEX_SELECT_FILE lists them, one a line, relative to the tree's root
// (the working folder). A launcher that cannot narrow its command to them (the command names its own
// test paths) refuses: it writes why to `<list>.refused`, which the gate reads (src/measure/select.ts),
// and exits without running, so the gate runs the whole suite instead. Both variables are removed
// once read: no test needs to know that it runs as a selection.
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, like the launchers that load it */
const { readFileSync, writeFileSync } = require("node:fs");
const { resolve } = require("node:path");

/** The listed files (`files`, absolute paths) and the list's path, or null when this run selects no files. */
function selectedFiles() {
  const list = process.env.RANEX_SELECT_FILE;
  if (process.env.RANEX_SELECT_BY !== "file" || list === undefined || list === "") return null;
  delete process.env.RANEX_SELECT_FILE;
  delete process.env.RANEX_SELECT_BY;
  const files = readFileSync(list, "utf8").split("\n").filter((line) => line.trim() !== "");
  return { list, files: new Set(files.map((f) => resolve(process.cwd(), f))) };
}

/** Whether a path is one of the selected files. */
const keepOnly = (selected, file) => selected.files.has(resolve(process.cwd(), file));

/** Refuses the selection with a reason the gate shows, and ends the run before any test. */
function refuse(selected, why) {
  writeFileSync(`${selected.list}.refused`, `${why}\n`);
  process.stderr.write(`ranex: ${why}\n`);
  process.exit(3);
}

/** A path as an anchored regular expression (jest's test path patterns). */
const anchored = (file) => `^${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`;

module.exports = { anchored, keepOnly, refuse, selectedFiles };
