// mocha: through the gate's launcher (reporters/mocha-run.cjs: mocha-junit-reporter, each suite with
// its file). The canary is a test file of the gate's own that the launcher loads with `--file`, a
// root-suite test failing through mocha's own assertion path (issue 22); no selection.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { detectNode, missingNote, NODE_KEY_FILES, WHOLE_SUITE_NOTE } from "./node-package.js";
import type { Runner } from "./types.js";

/** Whether a test command runs mocha through the gate's launcher, which takes the canary. */
export function runsGateMocha(command: string): boolean {
  return /(?:^|\s)node\s+"?\$\{?RANEX_REPORTERS\}?\/mocha-run\.cjs"?(?:\s|$)/.test(command);
}

function canaryFile(name: string, message: string): string {
  return `"use strict";
// Added by Ranex Gate: one test that must fail. Reported passed or skipped, the run is not believed.
it(${JSON.stringify(name)}, function () {
  require("node:assert").fail(${JSON.stringify(message)});
});
`;
}

export const mocha: Runner = {
  name: "mocha",
  runs: (command) => runsGateMocha(command) || /(?:^|[\s/;&|(])mocha(?:\s|$)/.test(command),
  detect: async (repo) => detectNode(repo, "mocha"),
  command: (found) => ({ command: 'node "$RANEX_REPORTERS/mocha-run.cjs"', note: missingNote(found) }),
  async canary({ command, name, message, hostDir, seenAs }) {
    if (!runsGateMocha(command)) return { note: "mocha: the canary is given through the gate's launcher only (node \"$RANEX_REPORTERS/mocha-run.cjs\")" };
    await writeFile(join(hostDir, "mocha-canary.cjs"), canaryFile(name, message));
    return { env: { RANEX_MOCHA_CANARY: `${seenAs}/mocha-canary.cjs` }, mountHostDir: true };
  },
  select: () => null,
  canSelect: () => false,
  repeatNote: WHOLE_SUITE_NOTE,
  deps: { keyFiles: NODE_KEY_FILES },
};
