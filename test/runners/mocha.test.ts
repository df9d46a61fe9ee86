import { realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runnersOf } from "../../src/measure/canary.js";
import { REPORTERS_DIR, SANDBOX_REPORTERS_DIR } from "../../src/measure/reporters.js";
import { runSuite } from "../../src/measure/run-suite.js";
import type { SuiteRun } from "../../src/measure/report-types.js";
import { FORGED_RESULTS, regressionClaim } from "../../src/measure/tests/regression.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { mocha, mochaArgs } from "../../src/runners/mocha.js";
import type { Detection } from "../../src/policy/detect.js";
import { PROFILE } from "../sandbox/helpers.js";
import { tempDir } from "../helpers/git-repo.js";
import { writeTree } from "../measure/tests/real-run.js";

// mocha's canary (issues 22 and 19): through the gate's launcher, a test file with a fresh name
// beside one of the tree's own, failing through mocha's own assertion paths; nothing in the
// environment names it. Real mocha runs in the sandbox, mocha and
// mocha-junit-reporter from the toolchain (the project's own node_modules/.bin).
const TOOLCHAIN = realpathSync(join(import.meta.dirname, "..", "..", "node_modules", ".bin"));
const MOCHA = 'node "$RANEX_REPORTERS/mocha-run.cjs"';
const CALC = { "src/calc.js": "exports.add = (a, b) => a + b;\n" };
const TESTS = {
  "test/calc.test.js": "const assert = require('node:assert');\nconst { add } = require('../src/calc');\n\ndescribe('calc', () => {\n  it('adds', () => {\n    assert.strictEqual(add(2, 3), 5);\n  });\n});\n",
};
// Stands for code that rewrites outcomes wholesale: every test that fails is reported passed.
const FORGE = {
  "test/forge.js": "const { Runner } = require(require.resolve('mocha', { paths: process.env.NODE_PATH.split(':') }));\nconst emit = Runner.prototype.emit;\nRunner.prototype.emit = function (event, test, err) {\n  if (event === 'fail') { test.state = 'passed'; return emit.call(this, 'pass', test); }\n  return emit.apply(this, arguments);\n};\n",
  ".mocharc.json": JSON.stringify({ require: ["./test/forge.js"] }),
};

async function run(files: Record<string, string>, canary = true, command = MOCHA): Promise<SuiteRun> {
  const treeDir = writeTree({ "package.json": "{\"name\":\"calc\",\"private\":true}\n", ...files });
  const scratch = tempDir("ranex-mocha-run-");
  return runSuite(createSandbox({ ...PROFILE, toolchain: [TOOLCHAIN], mounts: [{ host: REPORTERS_DIR, sandbox: SANDBOX_REPORTERS_DIR }] }), {
    label: "head", treeDir, readonly: [], reportDir: `${scratch}/report`, ...(canary ? { canaryDir: `${scratch}/canary` } : {}),
    setup: undefined, command, setupNetwork: false, timeout: 60,
  });
}

describe("mocha's canary", () => {
  it("is given to the gate's mocha launcher, and named for a plain mocha command only to say it is not", () => {
    expect(runnersOf(MOCHA)).toEqual(["mocha"]);
    expect(runnersOf("npx mocha --reporter mocha-junit-reporter")).toEqual(["mocha"]);
  });

  it("fails in an honest run and is never part of the report the claims read", async () => {
    const head = await run({ ...CALC, ...TESTS });

    expect(head.canary).toMatchObject({ runners: ["mocha"], result: "failed", othersRan: true });
    expect(head.report?.cases.map((c) => c.id)).toEqual(["test/calc.test.js::calc adds"]);
    const evidence = regressionClaim("sha256:s", await run({ ...CALC, ...TESTS }, false), head, [], []);
    expect(evidence.outcome, evidence.reason).toBe("pass");
  }, 120_000);

  it("reported passed by code that rewrites results: the run reported results that did not happen (unsafe)", async () => {
    const forged = await run({ ...CALC, ...TESTS, ...FORGE });
    expect(forged.canary?.result).toBe("passed");
    const evidence = regressionClaim("sha256:s", await run({ ...CALC, ...TESTS }, false), forged, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.unsafe).toBe(true);
    expect(evidence.reason).toContain(FORGED_RESULTS);
  }, 120_000);

  it("has no fixed name in the environment: a test looking for one finds none, and the canary sits beside the tests", async () => {
    const looking = {
      "test/env.test.js": "const assert = require('node:assert');\n\ndescribe('env', () => it('sees no canary in the environment', () => {\n"
        + "  assert.deepStrictEqual(Object.keys(process.env).filter((k) => /CANARY|RANEX_MOCHA/i.test(k)), []);\n"
        + "  assert.deepStrictEqual(Object.values(process.env).filter((v) => /canary/i.test(v)), []);\n}));\n",
    };
    const head = await run({ ...CALC, ...TESTS, ...looking });
    expect(head.canary).toMatchObject({ runners: ["mocha"], result: "failed", othersRan: true });
    expect(head.report?.cases.map((c) => `${c.id} ${c.result}`).sort()).toEqual([
      "test/calc.test.js::calc adds passed", "test/env.test.js::env sees no canary in the environment passed",
    ]);
  }, 120_000);

  it("catches a module under test that neuters node:assert's strict and legacy equal at import (the plain throw stays red)", async () => {
    const neutered = {
      "src/calc.js": "const assert = require('node:assert');\nassert.strict.equal = () => {};\nassert.equal = () => {};\nexports.add = (a, b) => a + b;\n",
    };
    const head = await run({ ...TESTS, ...neutered });
    const evidence = regressionClaim("sha256:s", await run({ ...CALC, ...TESTS }, false), head, [], []);
    expect(evidence.outcome).toBe("fail");
    expect(evidence.unsafe).toBe(true);
    expect(evidence.reason).toContain("node:assert strict equal");
    expect(evidence.reason).toContain("node:assert legacy equal");
  }, 120_000);

  it("is left out, with a note, for a mocha command that is not the gate's launcher", async () => {
    const plain = await run({ ...CALC, ...TESTS }, true, "node_modules/.bin/mocha --reporter mocha-junit-reporter");
    expect(plain.canary?.result).toBe("absent");
    expect(plain.canary?.notes).toEqual(["mocha: the canary is given through the gate's launcher only (node \"$RANEX_REPORTERS/mocha-run.cjs\")"]);
  }, 120_000);
});

// Issue 22: the owner's test script names mocha's spec (`mocha 'src/**/*.spec.js'`); a launcher
// command without it ran mocha's default ./test and found nothing.
describe("the command init writes for mocha", () => {
  const found = (testScript: string): Detection => ({
    kind: "mocha", evidence: "package.json scripts.test runs mocha", install: null, runnerDeclared: true, reporterDeclared: true,
    testDirs: [], pythonPath: [], checks: [], testScript,
  });

  it("gives the launcher the script's spec and options, less its reporter and watch options", () => {
    expect(mochaArgs("mocha")).toEqual([]);
    expect(mochaArgs("mocha test/")).toEqual(["test/"]);
    expect(mochaArgs("nyc ./node_modules/.bin/mocha 'src/**/*.spec.js' --timeout 5000 -R dot --reporter-option x=1 --watch && eslint .")).toEqual(["src/**/*.spec.js", "--timeout", "5000"]);
    expect(mochaArgs("mocha --reporter=spec \"test/a b.js\" | tee out.txt")).toEqual(["test/a b.js"]);
    expect(mochaArgs("mocha-headless test/")).toEqual([]);
    expect(mocha.command(found("mocha 'src/**/*.spec.js' --recursive"))?.command).toBe(`${MOCHA} 'src/**/*.spec.js' --recursive`);
    expect(mocha.command(found("mocha"))?.command).toBe(MOCHA);
  });

  it("runs the tests a spec outside ./test names, the canary beside them", async () => {
    const command = mocha.command(found("mocha 'src/**/*.spec.js'"))?.command ?? "";
    const spec = { "src/calc.spec.js": (TESTS["test/calc.test.js"]).replace("'../src/calc'", "'./calc'") };
    const head = await run({ ...CALC, ...spec }, true, command);
    expect(head.report?.cases.map((c) => `${c.id} ${c.result}`)).toEqual(["src/calc.spec.js::calc adds passed"]);
    expect(head.canary).toMatchObject({ runners: ["mocha"], result: "failed", othersRan: true });
  }, 120_000);
});

// Found on yargs/yargs-parser (issue 22): its test folder holds scripts mocha's spec ('test/*.mjs')
// never collects (test/deno/*.ts, test/browser/*.cjs, test/fixtures/*.cjs), and the canary, put
// beside a random one of them, was "not collected" in most runs. It goes among the spec's files now.
describe("mocha canary placement", () => {
  it("goes beside a file the command's spec collects, after steps joined by &&", async () => {
    const tree = writeTree({
      "test/browser/yargs-test.cjs": "", "test/deno/yargs-test.ts": "", "test/fixtures/settings.cjs": "", "test/typescript/types.ts": "",
      "test/yargs-parser.mjs": "", "test/string-utils.mjs": "",
    });
    const command = `npm run pretest && node "$RANEX_REPORTERS/mocha-run.cjs" 'test/*.mjs'`;
    const values = { word: "w", right: 1, wrong: 2 };
    for (let i = 0; i < 12; i++) {
      const placed = await mocha.canary?.({ command, treeDir: tree, hostDir: tempDir(), seenAs: "/opt/ranex/run", values });
      const file = placed !== undefined && "treeFiles" in placed ? placed.treeFiles?.[0] : undefined;
      expect(file).toMatch(/^test\/[a-z-]+\.mjs$/);
      rmSync(join(tree, file ?? ""));
    }
    // A spec that names no file the tree has: any test file, as before.
    const placed = await mocha.canary?.({ command: `node "$RANEX_REPORTERS/mocha-run.cjs" 'spec/*.js'`, treeDir: tree, hostDir: tempDir(), seenAs: "/opt/ranex/run", values });
    expect(placed !== undefined && "treeFiles" in placed ? placed.treeFiles?.[0] : undefined).toMatch(/^test\//);
  });
});
