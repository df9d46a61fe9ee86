// node --test: JUnit through the gate's reporter ($RANEX_NODE_REPORTER: Node 20's own names no file);
// the canary is a preload that registers a failing test in the first test file's process.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { detectNode, missingNote, NODE_KEY_FILES, WHOLE_SUITE_NOTE } from "./node-package.js";
import type { Runner } from "./types.js";

// Every node:test file runs in a process of its own; only the first to take the lock (in the run's
// private /tmp) registers the canary, so it is reported once.
function preload(name: string, token: string, message: string): string {
  return `"use strict";
// Added by Ranex Gate: one test that must fail. Reported passed or skipped, the run is not believed.
if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const fs = require("node:fs");
  const path = require("node:path");
  const os = require("node:os");
  let first = false;
  try {
    fs.closeSync(fs.openSync(path.join(os.tmpdir(), ${JSON.stringify(`ranex-canary-${token}.lock`)}), "wx"));
    first = true;
  } catch {}
  if (first) require("node:test").test(${JSON.stringify(name)}, () => { throw new Error(${JSON.stringify(message)}); });
}
`;
}

export const nodeTest: Runner = {
  name: "node-test",
  runs: (command) => /\bnode(?:js)?\b[^|;&]*\s--test\b/.test(command),
  detect: async (repo) => detectNode(repo, "node-test"),
  command: (found) => ({ command: 'node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT"', note: missingNote(found) }),
  async canary({ command, token, name, message, hostDir, seenAs }) {
    if (/\bNODE_OPTIONS\b/.test(command)) return { note: "node:test: the command sets NODE_OPTIONS itself, so the canary preload was not added" };
    await writeFile(join(hostDir, "canary.cjs"), preload(name, token, message));
    return { env: { NODE_OPTIONS: `--require ${seenAs}/canary.cjs` }, mountHostDir: true };
  },
  select: () => null,
  canSelect: () => false,
  repeatNote: WHOLE_SUITE_NOTE,
  deps: { keyFiles: NODE_KEY_FILES },
};
