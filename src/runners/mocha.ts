// mocha: through the gate's launcher (reporters/mocha-run.cjs: mocha-junit-reporter, each suite with
// its file). No canary yet (issue 22 gives it one); no selection.
import { detectNode, missingNote, NODE_KEY_FILES, WHOLE_SUITE_NOTE } from "./node-package.js";
import type { Runner } from "./types.js";

export const mocha: Runner = {
  name: "mocha",
  // Canary and selection are not given to mocha yet, so naming it changes nothing at run time.
  runs: () => false,
  detect: async (repo) => detectNode(repo, "mocha"),
  command: (found) => ({ command: 'node "$RANEX_REPORTERS/mocha-run.cjs"', note: missingNote(found) }),
  canary: async () => ({ note: "mocha: the gate cannot give mocha a canary yet" }),
  select: () => null,
  canSelect: () => false,
  repeatNote: WHOLE_SUITE_NOTE,
  deps: { keyFiles: NODE_KEY_FILES },
};
