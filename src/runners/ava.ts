// ava: `ava --tap` through the gate's launcher (reporters/tap-run.cjs), one process per test file, so
// a test's file is the subtest it sits in (ava's own titles prefix a file's name only when it runs
// several). Read by tap-report.ts: every point is a test; ava's crash points (an uncaught error, a
// file that exited) make the file a load error. The canary fails through t.is, t.deepEqual and a
// plain throw, and passes t.is. Selection: the launcher runs only the selected tests' files, with
// `--match=<title>` for each selected title.
import { detectNode, NODE_KEY_FILES } from "./node-package.js";
import { CHECKSUM_JS, launcherCommand, launcherRunner, launcherSelection, TAP_READER, tapCanaries, TAP_SCRIPTED } from "./tap-launch.js";
import type { Runner } from "./types.js";

export const ava: Runner = {
  name: "ava",
  runs: (command) => launcherRunner(command) === "ava" || TAP_SCRIPTED.ava.pattern.test(command),
  detect: async (repo) => detectNode(repo, "ava"),
  command: (found) => launcherCommand("ava", found, found.testScript ?? ""),
  read: TAP_READER,
  canary: (ctx) => tapCanaries("ava", ctx, {
    via: ["ava t.is", "ava t.deepEqual", "a plain throw", "ava t.is"],
    body: (v, [is, deep, raise, pass]) => {
      const q = JSON.stringify;
      return `"use strict";
const test = require("ava");
${CHECKSUM_JS}
test(${q(is)}, (t) => { t.is(checksum(${q(v.word)}), ${v.wrong}); });
test(${q(deep)}, (t) => { t.deepEqual([checksum(${q(v.word)})], [${v.wrong}]); });
test(${q(raise)}, (t) => {
  const got = checksum(${q(v.word)});
  if (got !== ${v.wrong}) throw new Error("expected ${v.wrong}, got " + got);
  t.pass();
});
test(${q(pass)}, (t) => { t.is(checksum(${q(v.word)}), ${v.right}); });
`;
    },
  }),
  ...launcherSelection("ava", "the TAP launcher, by file and ava --match"),
  repeatNote: "ava repeats only the targets (the gate's TAP launcher selects their files, and their titles with --match).",
  deps: { keyFiles: NODE_KEY_FILES },
};
