// Runs jest for the gate so that its report names each test's file and the tests see a clean argv.
// `ranex init` writes it for jest repositories:
//   node "$RANEX_REPORTERS/jest-run.cjs" [jest arguments...]
// - jest and jest-junit are looked up in the tree's node_modules first, then in the toolchain's
//   (any `.../node_modules/.bin` on PATH), so a runner from `toolchain.path` works as well;
// - jest-junit writes to $RANEX_JUNIT with a `file` attribute on every test case;
// - jest runs tests in this very process when it runs in band, and tests that read process.argv
//   (CLI libraries) would see jest's flags: argv is reset to [node, this file] before jest starts.
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: jest is loaded by require.resolve from the tree or the toolchain */
const { dirname, join } = require("node:path");

const toolchainModules = (process.env.PATH ?? "").split(":").filter((dir) => /\/node_modules\/\.bin\/?$/.test(dir)).map((dir) => dirname(dir.replace(/\/$/, "")));
const searchFrom = [process.cwd(), ...toolchainModules];

function find(name) {
  try {
    return require.resolve(name, { paths: searchFrom });
  } catch {
    return null;
  }
}

const jestEntry = find("jest");
const junitEntry = find("jest-junit");
const missing = [jestEntry === null ? "jest" : null, junitEntry === null ? "jest-junit" : null].filter((name) => name !== null);
if (missing.length > 0) {
  process.stderr.write(`ranex: ${missing.join(" and ")} cannot be found from ${searchFrom.join(", ")}: add ${missing.join(" ")} to devDependencies (npm install --save-dev ${missing.join(" ")}) or name a node_modules/.bin holding them in toolchain.path\n`);
  process.exit(1);
}
if (process.env.RANEX_JUNIT === undefined || process.env.RANEX_JUNIT === "") {
  process.stderr.write("ranex: RANEX_JUNIT is not set: this runs under the gate, which names the report file\n");
  process.exit(1);
}
process.env.JEST_JUNIT_OUTPUT_FILE = process.env.RANEX_JUNIT;
process.env.JEST_JUNIT_ADD_FILE_ATTRIBUTE = "true";
// Jest resolves transformers and presets itself; let it find the toolchain's too.
process.env.NODE_PATH = [...(process.env.NODE_PATH ?? "").split(":").filter(Boolean), join(process.cwd(), "node_modules"), ...toolchainModules].join(":");

const args = ["--ci", "--passWithNoTests", "--reporters=default", `--reporters=${junitEntry}`, ...process.argv.slice(2)];
process.argv = process.argv.slice(0, 2);
require(jestEntry).run(args).catch((err) => {
  process.stderr.write(`ranex: jest failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
