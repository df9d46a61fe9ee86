// vitest: its own JUnit reporter (the classname is the test file's path). Through the gate's launcher
// (reporters/vitest-run.cjs) the canaries run inside every test file (./canary-in-file.ts); a vitest
// command without the launcher gets a canary test file instead.
import { inFileCanaries } from "./canary-in-file.js";
import { detectNode, missingNote, NODE_KEY_FILES, nodeBin, rangeAtLeast, WHOLE_SUITE_NOTE } from "./node-package.js";
import { expectCanaries } from "./test-file-canary.js";
import { vitestFiles } from "./js-select-files.js";
import type { Runner } from "./types.js";

/** Whether a test command runs vitest through the gate's own launcher. */
export function runsGateVitest(command: string): boolean {
  return /(?:^|\s)node\s+(?:"\$RANEX_REPORTERS\/vitest-run\.cjs"|\$RANEX_REPORTERS\/vitest-run\.cjs)(?:\s|$)/.test(command);
}

export const vitest: Runner = {
  name: "vitest",
  runs: (command) => /\bvitest\b/.test(command),
  detect: async (repo) => detectNode(repo, "vitest"),
  // Vitest's JUnit classname is the test file's path, which is how the gate finds the file. The
  // gate's launcher needs vitest's `configureVitest` plugin hook (3.1 and later): init writes it when
  // package.json pins vitest at 3.1 or later, and vitest's own command otherwise (the canary is then a
  // test file of its own, which cannot see what a file does to its own `expect`).
  command: (found) => ({
    command: found.runnerDeclared && found.install !== null && rangeAtLeast(found.runnerRange, 3, 1)
      ? `node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests`
      : `${nodeBin(found, "vitest")} run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests`,
    note: missingNote(found),
  }),
  canary: (ctx) => (runsGateVitest(ctx.command) ? inFileCanaries("vitest", ctx) : expectCanaries("vitest", ctx)),
  fileCanary: (ctx) => (runsGateVitest(ctx.command) ? inFileCanaries("vitest", ctx) : null),
  select: () => null,
  // The PR's own runs: its new files as vitest's filters (the launcher's, or appended to vitest's own command).
  selectFiles: (ctx) => vitestFiles(ctx, runsGateVitest(ctx.command)),
  canSelect: () => false,
  repeatNote: WHOLE_SUITE_NOTE,
  deps: { keyFiles: NODE_KEY_FILES },
};
