// tape: TAP through the gate's launcher (reporters/tap-run.cjs), one process per test file, read by
// tap-report.ts (a `# name` comment opens a test, its points are the assertions). The canary is a
// test file of tape's own: it fails through tape's t.equal, t.deepEqual and t.ok, and passes t.equal.
// Selection: the launcher runs only the selected tests' files, whole (tape has no name filter).
import { detectNode, NODE_KEY_FILES } from "./node-package.js";
import { CHECKSUM_JS, launcherCommand, launcherRunner, launcherSelection, TAP_READER, tapCanaries, TAP_SCRIPTED } from "./tap-launch.js";
import type { Runner } from "./types.js";

export const tape: Runner = {
  name: "tape",
  runs: (command) => launcherRunner(command) === "tape" || TAP_SCRIPTED.tape.pattern.test(command),
  detect: async (repo) => detectNode(repo, "tape"),
  command: (found) => launcherCommand("tape", found, found.testScript ?? ""),
  read: TAP_READER,
  canary: (ctx) => tapCanaries("tape", ctx, {
    via: ["tape t.equal", "tape t.deepEqual", "tape t.ok", "tape t.equal"],
    body: (v, [equal, deep, ok, pass]) => {
      const q = JSON.stringify;
      return `"use strict";
const test = require("tape");
${CHECKSUM_JS}
test(${q(equal)}, (t) => { t.equal(checksum(${q(v.word)}), ${v.wrong}); t.end(); });
test(${q(deep)}, (t) => { t.deepEqual([checksum(${q(v.word)})], [${v.wrong}]); t.end(); });
test(${q(ok)}, (t) => { t.ok(checksum(${q(v.word)}) === ${v.wrong}); t.end(); });
test(${q(pass)}, (t) => { t.equal(checksum(${q(v.word)}), ${v.right}); t.end(); });
`;
    },
  }),
  ...launcherSelection("tape", "the TAP launcher, by file (tape cannot select by name)"),
  repeatNote: "tape repeats only the targets' test files, whole (the gate's TAP launcher selects them; tape cannot select by name).",
  deps: { keyFiles: NODE_KEY_FILES },
};
