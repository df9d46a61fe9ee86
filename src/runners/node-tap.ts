// node-tap (`tap`): raw TAP (--reporter=tap, coverage off) through the gate's launcher
// (reporters/tap-run.cjs), one process per test file. Read by tap-report.ts: every subtest is a test,
// the points inside it are its assertions; assertions outside any subtest are the file's
// `(top level)` test. The canary fails through t.equal, t.same and a plain throw, and passes t.equal.
// Selection: the launcher runs only the selected tests' files, with `--grep` on their top-level subtests.
import { detectNode, NODE_KEY_FILES } from "./node-package.js";
import { CHECKSUM_JS, launcherCommand, launcherRunner, launcherSelection, TAP_READER, tapCanaries, TAP_SCRIPTED } from "./tap-launch.js";
import type { Runner } from "./types.js";

export const nodeTap: Runner = {
  name: "tap",
  runs: (command) => launcherRunner(command) === "tap" || TAP_SCRIPTED.tap.pattern.test(command),
  detect: async (repo) => detectNode(repo, "tap"),
  command: (found) => launcherCommand("tap", found, found.testScript ?? ""),
  read: TAP_READER,
  canary: (ctx) => tapCanaries("tap", ctx, {
    via: ["node-tap t.equal", "node-tap t.same", "a plain throw", "node-tap t.equal"],
    body: (v, [equal, same, raise, pass]) => {
      const q = JSON.stringify;
      return `"use strict";
const t = require("tap");
${CHECKSUM_JS}
t.test(${q(equal)}, async (t) => { t.equal(checksum(${q(v.word)}), ${v.wrong}); });
t.test(${q(same)}, async (t) => { t.same([checksum(${q(v.word)})], [${v.wrong}]); });
t.test(${q(raise)}, async () => {
  const got = checksum(${q(v.word)});
  if (got !== ${v.wrong}) throw new Error("expected ${v.wrong}, got " + got);
});
t.test(${q(pass)}, async (t) => { t.equal(checksum(${q(v.word)}), ${v.right}); });
`;
    },
  }),
  ...launcherSelection("tap", "the TAP launcher, by file and node-tap --grep"),
  repeatNote: "node-tap repeats only the targets (the gate's TAP launcher selects their files, and their top-level subtests with --grep).",
  deps: { keyFiles: NODE_KEY_FILES },
};
