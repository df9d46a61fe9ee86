// Shared by the gate's runner launchers (jest-run.cjs, mocha-run.cjs): finds a package in the tree's
// node_modules first, then in the toolchain's (any `.../node_modules/.bin` on PATH), and says what
// to do when it is in neither.
"use strict";
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: runners are loaded by require.resolve */
const { dirname, join } = require("node:path");

const toolchainModules = (process.env.PATH ?? "").split(":").filter((dir) => /\/node_modules\/\.bin\/?$/.test(dir)).map((dir) => dirname(dir.replace(/\/$/, "")));
const searchFrom = [process.cwd(), ...toolchainModules];

/** Absolute paths of `names` (package names or package subpaths), or exits 1 naming the missing packages. */
function findOrExit(names) {
  const found = names.map((name) => {
    try {
      return require.resolve(name, { paths: searchFrom });
    } catch {
      return null;
    }
  });
  // Name the package, not the subpath asked for (`vitest/node` -> vitest, `@scope/pkg/lib/x` -> @scope/pkg).
  const missing = names.filter((_, i) => found[i] === null).map((name) => /^(?:@[^/]+\/)?[^/]+/.exec(name)?.[0] ?? name);
  if (missing.length > 0) {
    process.stderr.write(`ranex: ${missing.join(" and ")} cannot be found from ${searchFrom.join(", ")}: add ${missing.join(" ")} to devDependencies (npm install --save-dev ${missing.join(" ")}) or name a node_modules/.bin holding them in toolchain.path\n`);
    process.exit(1);
  }
  if (process.env.RANEX_JUNIT === undefined || process.env.RANEX_JUNIT === "") {
    process.stderr.write("ranex: RANEX_JUNIT is not set: this runs under the gate, which names the report file\n");
    process.exit(1);
  }
  // The runner resolves plugins (transformers, presets, --require) itself: let it see the toolchain's too.
  process.env.NODE_PATH = [...(process.env.NODE_PATH ?? "").split(":").filter(Boolean), join(process.cwd(), "node_modules"), ...toolchainModules].join(":");
  return found;
}

/** Tests that read process.argv (CLI libraries) run in this process: they must not see runner flags. */
function cleanArgv() {
  const extra = process.argv.slice(2);
  process.argv = process.argv.slice(0, 2);
  return extra;
}

module.exports = { findOrExit, cleanArgv };
