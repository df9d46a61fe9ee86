import { describe, expect } from "vitest";
import { judgedAsNewUser } from "./ecosystem-case.js";
import { selectsWithTheRealRunner } from "./tap-selection.js";

// node-tap as a new user meets it (issue 22), see ecosystem-case.ts: fixtures/repos/node-tap-calc.sh
// (tap-calc in node-tap's words, `npm test` -> `tap test/*.js`, tap 21 from the npm registry). `ranex
// init` writes the gate's TAP launcher (raw TAP, no coverage, one process per file); its policy is
// committed unmodified and the three heads judged (CANDIDATE, FAIL unsafe, FAIL); a repeat runs the
// target's subtest alone (`--grep`).
// node-tap's runner costs about 3 s of CPU per test file (plain node: 0.4 s), so this file took
// 220 s of CI's two cores: it runs when RANEX_E2E_NODE_TAP=1, as Gradle's does, and is reported
// skipped otherwise. node-tap's reader and selection run in test/runners/tap-report.test.ts on TAP a
// real node-tap 21.8 wrote; the launcher's sandboxed selection in test/runners/tap-run-sandbox.test.ts.
describe.runIf(process.env.RANEX_E2E_NODE_TAP === "1")("node-tap (RANEX_E2E_NODE_TAP=1)", () => {
  judgedAsNewUser({
    name: "node-tap-calc", runner: "tap", target: "test/calc.js::muls", frozen: "test/calc.js", newTest: "test/mul-more.js::muls negatives", ownFile: "test/mul-more.js", selects: true,
    initSaw: ({ stdout, written }) => {
      expect(stdout).toContain("runner: tap (package.json scripts.test runs tap)");
      expect(stdout).toContain("tests found: 3 in 1 file(s)");
      expect(written).toContain(`command: 'node "$RANEX_REPORTERS/tap-run.cjs" tap ''test/*.js'''`);
      expect(written).toContain("node-tap repeats only the targets");
    },
    more: (seen) => selectsWithTheRealRunner(seen, "the TAP launcher, by file and node-tap --grep", []),
  });
});
