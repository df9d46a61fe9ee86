import { describe, expect, it } from "vitest";
import { REPORTERS_DIR, SANDBOX_REPORTERS_DIR } from "../../src/measure/reporters.js";
import { runSuite } from "../../src/measure/run-suite.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { PROFILE } from "../sandbox/helpers.js";
import { tempDir } from "../helpers/git-repo.js";
import { writeTree } from "../measure/tests/real-run.js";

// The gate's TAP launcher in a real run (issue 22): bubblewrap, the reporters folder mounted
// read-only, the report read from $RANEX_REPORT, and the canary given. `node --test` is the runner
// here (the machine's Node, no registry); tape's run is judged end to end in test/e2e/tap.test.ts.
const COMMAND = 'node "$RANEX_REPORTERS/tap-run.cjs" node-test \'test/**/*.test.js\'';

const CALC = {
  "package.json": "{\"name\":\"calc\",\"private\":true}\n",
  "src/calc.js": "exports.add = (a, b) => a + b;\n",
  "test/calc.test.js": "const test = require('node:test');\nconst assert = require('node:assert/strict');\nconst { add } = require('../src/calc');\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
};

async function run(files: Record<string, string>, canary: boolean) {
  const scratch = tempDir("ranex-tap-run-");
  return runSuite(createSandbox({ ...PROFILE, mounts: [{ host: REPORTERS_DIR, sandbox: SANDBOX_REPORTERS_DIR }] }), {
    label: "head", treeDir: writeTree(files), readonly: [], reportDir: `${scratch}/report`, ...(canary ? { canaryDir: `${scratch}/canary` } : {}),
    setup: undefined, command: COMMAND, setupNetwork: false, timeout: 120,
  });
}

describe("the TAP launcher in the sandbox", () => {
  it("reads each file's tests with its file, and node:test's canary fails through it as it must", async () => {
    const head = await run(CALC, true);
    expect(head.reportError).toBeNull();
    expect(head.report?.cases.map((c) => [c.id, c.file, c.result])).toEqual([["test/calc.test.js::adds", "test/calc.test.js", "passed"]]);
    expect(head.canary).toMatchObject({ runners: ["node:test"], result: "failed", othersRan: true });
    expect(head.canary?.members?.map((m) => [m.expect, m.result])).toEqual([["fail", "failed"], ["fail", "failed"], ["fail", "failed"], ["fail", "failed"], ["pass", "passed"]]);
  }, 180_000);

  it("a file failing to load is a load error of that file, the others still read", async () => {
    const head = await run({ ...CALC, "test/broken.test.js": "require('../src/missing');\n" }, false);
    expect(head.report?.cases.map((c) => [c.id, c.result])).toEqual([["test/calc.test.js::adds", "passed"]]);
    expect(head.report?.loadErrorMessages).toEqual([{ file: "test/broken.test.js", message: "Error: Cannot find module '../src/missing'" }]);
  }, 180_000);
});
