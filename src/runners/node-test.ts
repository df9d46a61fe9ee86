// node --test: JUnit through the gate's reporter ($RANEX_NODE_REPORTER: Node 20's own names no file);
// the canary is a preload that registers a failing test in the first test file's process. Through the
// gate's TAP launcher (`node "$RANEX_REPORTERS/tap-run.cjs" node-test <files>`, read by tap-report.ts)
// the same preload serves.
import { nodeTestCanaries } from "./canary-node.js";
import { detectNode, missingNote, NODE_KEY_FILES, WHOLE_SUITE_NOTE } from "./node-package.js";
import { launcherRunner, launcherSelection } from "./tap-launch.js";
import { launcherFiles, nodeTestFiles } from "./js-select-files.js";
import type { Runner } from "./types.js";

export const nodeTest: Runner = {
  name: "node-test",
  // Through the gate's TAP launcher too (`tap-run.cjs node-test`): its preload canary works there as well.
  runs: (command) => /\bnode(?:js)?\b[^|;&]*\s--test\b/.test(command) || launcherRunner(command) === "node-test",
  detect: async (repo) => detectNode(repo, "node-test"),
  command: (found) => ({ command: 'node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT"', note: missingNote(found) }),
  canary: nodeTestCanaries,
  // Only through the launcher (by file, and by name with --test-name-pattern): node:test's JUnit names no file.
  ...launcherSelection("node-test", "the TAP launcher, by file and node --test-name-pattern"),
  // The PR's own runs: through the launcher, its new files; a plain command with the gate's reporter, the files as its arguments.
  selectFiles: (ctx) => (launcherRunner(ctx.command) === "node-test" ? launcherFiles(ctx.command, ctx.common, "the TAP launcher, by file") : nodeTestFiles(ctx)),
  repeatNote: WHOLE_SUITE_NOTE,
  deps: { keyFiles: NODE_KEY_FILES },
};
