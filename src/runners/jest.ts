// jest: through the gate's launcher (reporters/jest-run.cjs: jest-junit with file attributes, a
// clean process.argv), which also selects from $RANEX_SELECT_FILE (ids, or the PR's new files) and loads the canaries into every
// test file (./canary-in-file.ts); a jest command without the launcher gets a canary test file instead.
import { detectNode, missingNote, NODE_KEY_FILES } from "./node-package.js";
import { inFileCanaries } from "./canary-in-file.js";
import { expectCanaries } from "./test-file-canary.js";
import { jestFiles } from "./js-select-files.js";
import type { Runner } from "./types.js";

/** Whether a test command runs jest through the gate's own launcher, which selects from $RANEX_SELECT_FILE. */
export function runsGateJest(command: string): boolean {
  return /(?:^|\s)node\s+(?:"\$RANEX_REPORTERS\/jest-run\.cjs"|\$RANEX_REPORTERS\/jest-run\.cjs)(?:\s|$)/.test(command);
}

export const jest: Runner = {
  name: "jest",
  // A vitest command never runs jest (the registry asks vitest first; a jest canary would break it).
  runs: (command) => /\bjest\b/.test(command) && !/\bvitest\b/.test(command),
  detect: async (repo) => detectNode(repo, "jest"),
  command: (found) => ({ command: 'node "$RANEX_REPORTERS/jest-run.cjs"', note: missingNote(found) }),
  canary: (ctx) => (runsGateJest(ctx.command) ? inFileCanaries("jest", ctx) : expectCanaries("jest", ctx)),
  fileCanary: (ctx) => (runsGateJest(ctx.command) ? inFileCanaries("jest", ctx) : null),
  select: ({ command, common }) => (runsGateJest(command) ? { command, env: common, how: "jest launcher", skipsLeftOut: true } : null),
  // The PR's own runs: its new files as anchored test path patterns, through the launcher only.
  selectFiles: (ctx) => (runsGateJest(ctx.command) ? jestFiles(ctx) : null),
  canSelect: runsGateJest,
  repeatNote: "jest repeats only the targets (the gate selects them).",
  deps: { keyFiles: NODE_KEY_FILES },
};
