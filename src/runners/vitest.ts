// vitest: its own JUnit reporter (the classname is the test file's path); the canary is a test file.
import { detectNode, missingNote, NODE_KEY_FILES, nodeBin, WHOLE_SUITE_NOTE } from "./node-package.js";
import { rootTestFile } from "./test-file-canary.js";
import type { Runner } from "./types.js";

export const vitest: Runner = {
  name: "vitest",
  runs: (command) => /\bvitest\b/.test(command),
  detect: async (repo) => detectNode(repo, "vitest"),
  // Vitest's JUnit classname is the test file's path, which is how the gate finds the file.
  command: (found) => ({ command: `${nodeBin(found, "vitest")} run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests`, note: missingNote(found) }),
  canary: (ctx) => rootTestFile(ctx, `ranex-canary-${ctx.token}.test.mjs`,
    `import { test } from "vitest";\ntest(${JSON.stringify(ctx.name)}, () => { throw new Error(${JSON.stringify(ctx.message)}); });\n`),
  select: () => null,
  canSelect: () => false,
  repeatNote: WHOLE_SUITE_NOTE,
  deps: { keyFiles: NODE_KEY_FILES },
};
