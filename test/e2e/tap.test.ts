import { expect } from "vitest";
import { judgedAsNewUser } from "./ecosystem-case.js";
import { selectsWithTheRealRunner } from "./tap-selection.js";

// tape, which writes TAP, as a new user meets it (issue 22), see ecosystem-case.ts:
// fixtures/repos/tap-calc.sh (`npm test` -> `npm run test:unit` -> `tape test/*.js`, tape from the npm
// registry). `ranex init` writes the gate's TAP launcher command and installs tape in its try; its
// policy is committed unmodified and the three heads judged (CANDIDATE, FAIL unsafe, FAIL). tape
// cannot select by name: a repeat runs the target's file whole.
const TARGET = "test/calc.js::muls";

judgedAsNewUser({
  name: "tap-calc", runner: "tape", target: TARGET, frozen: "test/calc.js", newTest: "test/mul-more.js::muls negatives", ownFile: "test/mul-more.js", selects: true,
  initSaw: ({ stdout, written }) => {
    expect(stdout).toContain("runner: tape (package.json scripts.test runs tape (through npm run test:unit))");
    expect(stdout).toContain("tests found: 3 in 1 file(s)");
    expect(written).toContain(`command: 'node "$RANEX_REPORTERS/tap-run.cjs" tape ''test/*.js'''`);
    expect(written).toContain("must write its TAP report to $RANEX_REPORT");
    expect(written).not.toContain("cannot read");
    expect(written).toContain("tape repeats only the targets' test files, whole");
  },
  more: (seen) => selectsWithTheRealRunner(seen, "the TAP launcher, by file (tape cannot select by name)", ["test/calc.js::adds", "test/calc.js::subs"]),
});
