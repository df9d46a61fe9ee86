// mocha: through the gate's launcher (reporters/mocha-run.cjs: mocha-junit-reporter, each suite with
// its file). The canary is a test file of the gate's own that the launcher loads with `--file`, a
// root-suite test failing through mocha's own assertion path (issue 22); no selection.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { detectNode, missingNote, NODE_KEY_FILES, WHOLE_SUITE_NOTE } from "./node-package.js";
import { phrases, titleOf } from "../measure/canary-names.js";
import type { CanaryContext, Runner } from "./types.js";

/** Whether a test command runs mocha through the gate's launcher, which takes the canary. */
export function runsGateMocha(command: string): boolean {
  return /(?:^|\s)node\s+"?\$\{?RANEX_REPORTERS\}?\/mocha-run\.cjs"?(?:\s|$)/.test(command);
}

// The family through mocha's root suite: a plain throw, node:assert strict and legacy equality, and
// one that must pass; each computes the checksum of a word (src/measure/canary.ts).
function canaryFile(v: CanaryContext["values"], names: [string, string, string, string]): string {
  const q = JSON.stringify;
  const [raise, strict, legacy, pass] = names.map((n) => q(n)) as [string, string, string, string];
  return `"use strict";
const checksum = (text) => [...text].reduce((sum, ch, i) => sum + (i + 1) * ch.charCodeAt(0), 0) % 1009;
it(${raise}, function () {
  const got = checksum(${q(v.word)});
  if (got !== ${v.wrong}) throw new Error("expected ${v.wrong}, got " + got);
});
it(${strict}, function () { require("node:assert").strict.equal(checksum(${q(v.word)}), ${v.wrong}); });
it(${legacy}, function () { require("node:assert").equal(checksum(${q(v.word)}), ${v.wrong}); });
it(${pass}, function () { require("node:assert/strict").equal(checksum(${q(v.word)}), ${v.right}); });
`;
}

export const mocha: Runner = {
  name: "mocha",
  runs: (command) => runsGateMocha(command) || /(?:^|[\s/;&|(])mocha(?:\s|$)/.test(command),
  detect: async (repo) => detectNode(repo, "mocha"),
  command: (found) => ({ command: 'node "$RANEX_REPORTERS/mocha-run.cjs"', note: missingNote(found) }),
  async canary({ command, hostDir, seenAs, values }) {
    if (!runsGateMocha(command)) return { note: "mocha: the canary is given through the gate's launcher only (node \"$RANEX_REPORTERS/mocha-run.cjs\")" };
    const names = phrases(4).map(titleOf) as [string, string, string, string];
    await writeFile(join(hostDir, "mocha-canary.cjs"), canaryFile(values, names));
    const [raise, strict, legacy, pass] = names;
    return {
      env: { RANEX_MOCHA_CANARY: `${seenAs}/mocha-canary.cjs` },
      members: [
        { name: raise, via: "a plain throw", expect: "fail" }, { name: strict, via: "node:assert strict equal", expect: "fail" },
        { name: legacy, via: "node:assert legacy equal", expect: "fail" }, { name: pass, via: "node:assert/strict equal", expect: "pass" },
      ],
    };
  },
  select: () => null,
  canSelect: () => false,
  repeatNote: WHOLE_SUITE_NOTE,
  deps: { keyFiles: NODE_KEY_FILES },
};
