import { writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { REPORTERS_DIR, SANDBOX_REPORTERS_DIR } from "../../src/measure/reporters.js";
import { runSuite } from "../../src/measure/run-suite.js";
import { canSelect, selectionFor, selectionList, selectionUnproven } from "../../src/measure/select.js";
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

async function run(files: Record<string, string>, canary: boolean, command = COMMAND, select?: { env: Record<string, string>; list: string; ids: readonly string[] }, scratch = tempDir("ranex-tap-run-")) {
  return runSuite(createSandbox({ ...PROFILE, mounts: [{ host: REPORTERS_DIR, sandbox: SANDBOX_REPORTERS_DIR }] }), {
    label: "head", treeDir: writeTree(files), readonly: [], reportDir: `${scratch}/report`, ...(canary ? { canaryDir: `${scratch}/canary` } : {}),
    setup: undefined, command, setupNetwork: false, timeout: 120, ...(select === undefined ? {} : { env: select.env }),
  }, select === undefined ? undefined : () => writeFile(select.list, selectionList(select.ids)));
}

/** A repeat of `ids` as src/measure/repeats.ts runs it: the policy's command with its selection, then whether it proves itself. */
async function repeat(files: Record<string, string>, ids: readonly string[], command = COMMAND) {
  // The list is in the run's report folder, which the run sees (as a repeat's is).
  const scratch = tempDir("ranex-tap-select-");
  const list = `${scratch}/report/select.txt`;
  const selection = selectionFor({ command }, ids, list, "bwrap");
  if (selection === null) throw new Error(`${command} cannot select`);
  const done = await run(files, false, selection.command, { env: selection.env, list, ids }, scratch);
  return { run: done, how: selection.how, unproven: await selectionUnproven(selection, ids, list, done) };
}

// Two files; nested tests (a describe suite, a test with subtests) and names a regular expression would misread.
const NESTED = {
  ...CALC,
  "test/more.test.js": "const { test, describe, it } = require('node:test');\ntest('a.b (x) [1]', () => {});\ntest('outer', async (t) => { await t.test('inner', () => {}); await t.test('other', () => {}); });\ndescribe('suite', () => { it('case one', () => {}); it('case two', () => {}); });\n",
};

describe("the TAP launcher in the sandbox", () => {
  it("reads each file's tests with its file, and node:test's canary fails through it as it must", async () => {
    const head = await run(CALC, true);
    expect(head.reportError).toBeNull();
    expect(head.report?.cases.map((c) => [c.id, c.file, c.result])).toEqual([["test/calc.test.js::adds", "test/calc.test.js", "passed"]]);
    expect(head.canary).toMatchObject({ runners: ["node:test"], result: "failed", othersRan: true });
    // The sixth: the registration canary (issue 19), passing where no frozen file saw its registration replaced.
    expect(head.canary?.members?.map((m) => [m.expect, m.result])).toEqual([["fail", "failed"], ["fail", "failed"], ["fail", "failed"], ["fail", "failed"], ["pass", "passed"], ["pass", "passed"]]);
  }, 180_000);

  it("selects by file and by name (--test-name-pattern); a selected test the filter did not run is never an outcome", async () => {
    expect(canSelect({ command: COMMAND })).toBe(true);
    // node:test's JUnit command names no file: no selection there.
    expect(canSelect({ command: 'node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT"' })).toBe(false);
    const picked = await repeat(NESTED, ["test/more.test.js::a.b (x) [1]", "test/more.test.js::outer::inner", "test/more.test.js::suite::case one"]);
    expect(picked.how).toBe("the TAP launcher, by file and node --test-name-pattern");
    expect(picked.unproven).toBeNull();
    // test/calc.test.js was not listed: not run. Node 20 matches each test's own name, and a test that
    // does not run runs none of its subtests: a selected test's parents are in the pattern too, so their
    // other tests run as well (more than asked, never less); the file's other tests are left out.
    expect(picked.run.report?.cases.map((c) => [c.id, c.result])).toEqual([
      ["test/more.test.js::a.b (x) [1]", "passed"], ["test/more.test.js::outer::inner", "passed"], ["test/more.test.js::outer::other", "passed"],
      ["test/more.test.js::suite::case one", "passed"], ["test/more.test.js::suite::case two", "passed"],
    ]);
    expect((await repeat(NESTED, ["test/more.test.js::suite::case two"])).run.report?.cases.map((c) => c.id)).toEqual(["test/more.test.js::suite::case one", "test/more.test.js::suite::case two"]);
    const alone = await repeat(NESTED, ["test/calc.test.js::adds"]);
    expect([alone.unproven, alone.run.report?.cases.map((c) => c.id)]).toEqual([null, ["test/calc.test.js::adds"]]);
    // A name no test has: the run cannot stand for it.
    expect((await repeat(NESTED, ["test/calc.test.js::adds", "test/calc.test.js::divides"])).unproven).toBe("the run of the selection (the TAP launcher, by file and node --test-name-pattern) did not report test/calc.test.js::divides");
    // A command that filters names itself keeps its filter (the launcher adds none): the selected test
    // it skips is left out of the report, not read as skipped, so the selection is unproven.
    const own = await repeat(NESTED, ["test/more.test.js::outer::inner", "test/more.test.js::suite::case two"], `node "$RANEX_REPORTERS/tap-run.cjs" node-test --test-name-pattern=one -- 'test/**/*.test.js'`);
    expect(own.unproven).toBe("the run of the selection (the TAP launcher, by file and node --test-name-pattern) did not report test/more.test.js::outer::inner, test/more.test.js::suite::case two");
  }, 180_000);

  it("a file failing to load is a load error of that file, the others still read", async () => {
    const head = await run({ ...CALC, "test/broken.test.js": "require('../src/missing');\n" }, false);
    expect(head.report?.cases.map((c) => [c.id, c.result])).toEqual([["test/calc.test.js::adds", "passed"]]);
    expect(head.report?.loadErrorMessages).toEqual([{ file: "test/broken.test.js", message: "Error: Cannot find module '../src/missing'" }]);
  }, 180_000);
});
