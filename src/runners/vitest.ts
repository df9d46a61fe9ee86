// vitest: its own JUnit reporter (the classname is the test file's path). Through the gate's launcher
// (reporters/vitest-run.cjs) the canaries run inside every test file (./canary-in-file.ts); a vitest
// command without the launcher gets a canary test file instead.
import { inFileCanaries } from "./canary-in-file.js";
import { detectNode, missingNote, NODE_KEY_FILES, nodeBin, WHOLE_SUITE_NOTE } from "./node-package.js";
import { expectCanaries } from "./test-file-canary.js";
import type { Runner } from "./types.js";

/** Whether a test command runs vitest through the gate's own launcher. */
export function runsGateVitest(command: string): boolean {
  return /(?:^|\s)node\s+(?:"\$RANEX_REPORTERS\/vitest-run\.cjs"|\$RANEX_REPORTERS\/vitest-run\.cjs)(?:\s|$)/.test(command);
}

export const vitest: Runner = {
  name: "vitest",
  runs: (command) => /\bvitest\b/.test(command),
  detect: async (repo) => detectNode(repo, "vitest"),
  // Vitest's JUnit classname is the test file's path, which is how the gate finds the file.
  // Not yet the gate's launcher (reporters/vitest-run.cjs), which a policy can name itself.
  command: (found) => ({ command: `${nodeBin(found, "vitest")} run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests`, note: missingNote(found) }),
  canary: (ctx) => (runsGateVitest(ctx.command) ? inFileCanaries("vitest", ctx) : expectCanaries("vitest", ctx)),
  fileCanary: (ctx) => (runsGateVitest(ctx.command) ? inFileCanaries("vitest", ctx) : null),
  select: () => null,
  canSelect: () => false,
  repeatNote: WHOLE_SUITE_NOTE,
  deps: { keyFiles: NODE_KEY_FILES },
};
