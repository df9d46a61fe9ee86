import { expect } from "vitest";
import { judgedAsNewUser } from "./ecosystem-case.js";
import { selectsWithTheRealRunner } from "./tap-selection.js";

// ava as a new user meets it (issue 22), see ecosystem-case.ts: fixtures/repos/ava-calc.sh (tap-calc
// in ava's words, `npm test` -> `ava test/*.js`, ava 6 from the npm registry). `ranex init` writes the
// gate's TAP launcher (`ava --tap`, one process per file); its policy is committed unmodified and the
// three heads judged (CANDIDATE, FAIL unsafe, FAIL); a repeat runs the target alone (`--match`).
judgedAsNewUser({
  name: "ava-calc", runner: "ava", target: "test/calc.js::muls", frozen: "test/calc.js", newTest: "test/mul-more.js::muls negatives", ownFile: "test/mul-more.js", selects: true,
  initSaw: ({ stdout, written }) => {
    expect(stdout).toContain("runner: ava (package.json scripts.test runs ava)");
    expect(stdout).toContain("tests found: 3 in 1 file(s)");
    expect(written).toContain(`command: 'node "$RANEX_REPORTERS/tap-run.cjs" ava ''test/*.js'''`);
    expect(written).toContain("ava repeats only the targets");
  },
  more: (seen) => selectsWithTheRealRunner(seen, "the TAP launcher, by file and ava --match", []),
});
