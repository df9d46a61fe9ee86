import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJunitReport, treeResolver } from "../../src/measure/junit-read.js";
import { REPORTERS_DIR } from "../../src/measure/reporters.js";
import { parseTap } from "../../src/runners/tap-report.js";
import { tempDir } from "../helpers/git-repo.js";
import { writeTree } from "../measure/tests/real-run.js";

// The TAP reader (issue 22) on real TAP: tape, ava --tap, node-tap and `node --test
// --test-reporter=tap` captured through the gate's launcher (test/runners/fixtures/tap/README.md
// says how), node --test run live, and the launcher run on runners that misbehave on purpose.
const FIXTURES = join(import.meta.dirname, "fixtures", "tap");
const LAUNCHER = join(REPORTERS_DIR, "tap-run.cjs");

function captured(name: string) {
  return parseTap(readFileSync(join(FIXTURES, `${name}.tap`), "utf8"), treeResolver(join(FIXTURES, "src")));
}

const outcomes = (report: ReturnType<typeof parseTap>) => report.cases.map((c) => [c.id, c.result, c.file]);

describe("the TAP reader on real runners' output", () => {
  it("tape: a `# name` comment is a test, its failing assertion fails it, SKIP and TODO are not passes", () => {
    const report = captured("tape");
    expect(outcomes(report)).toEqual([
      ["tape/calc.test.js::adds", "passed", "tape/calc.test.js"],
      ["tape/calc.test.js::muls", "failed", "tape/calc.test.js"],
      ["tape/calc.test.js::outer", "passed", "tape/calc.test.js"],
      ["tape/calc.test.js::inner", "passed", "tape/calc.test.js"],
      ["tape/calc.test.js::skipped one", "skipped", "tape/calc.test.js"],
      ["tape/calc.test.js::todo one", "skipped", "tape/calc.test.js"],
    ]);
    expect(report.cases[1]?.message).toBe("expected 42, got 0");
    expect(report.loadErrorMessages).toEqual([{ file: "tape/broken.test.js", message: "no TAP output (exit status 1): Error: Cannot find module './does-not-exist.js'" }]);
    expect(report.notes).toEqual([]);
  });

  it("ava --tap: every point is a test; its crash points make the file a load error, not tests", () => {
    const report = captured("ava");
    expect(outcomes(report)).toEqual([
      ["ava/calc.test.mjs::skipped one", "skipped", "ava/calc.test.mjs"],
      ["ava/calc.test.mjs::todo one", "skipped", "ava/calc.test.mjs"],
      ["ava/calc.test.mjs::adds", "passed", "ava/calc.test.mjs"],
      ["ava/calc.test.mjs::muls", "failed", "ava/calc.test.mjs"],
    ]);
    expect(report.cases[3]?.message).toBe("t.is() failed");
    expect(report.loadErrors).toEqual(["ava/broken.test.mjs"]);
    expect(report.loadErrorMessages?.[0]?.message).toMatch(/^Cannot find module '.*does-not-exist\.js'/);
  });

  it("node-tap: subtests are tests (nested ones joined with ::), assertions say why one failed", () => {
    const report = captured("node-tap");
    expect(outcomes(report)).toEqual([
      ["nodetap/calc.test.js::adds", "passed", "nodetap/calc.test.js"],
      ["nodetap/calc.test.js::muls", "failed", "nodetap/calc.test.js"],
      ["nodetap/calc.test.js::outer::inner", "passed", "nodetap/calc.test.js"],
      ["nodetap/calc.test.js::skipped one", "skipped", "nodetap/calc.test.js"],
      ["nodetap/calc.test.js::todo one", "skipped", "nodetap/calc.test.js"],
    ]);
    expect(report.cases[1]?.message).toBe("six times seven");
    expect(report.loadErrorMessages).toEqual([{ file: "nodetap/broken.test.js", message: expect.stringContaining("Cannot find module './does-not-exist.js'") as unknown as string }]);
  });

  it("node --test --test-reporter=tap: the same ids as its JUnit path, nested suites joined with ::", () => {
    const report = captured("node-test");
    expect(outcomes(report)).toEqual([
      ["nodetest/calc.test.js::adds", "passed", "nodetest/calc.test.js"],
      ["nodetest/calc.test.js::muls", "failed", "nodetest/calc.test.js"],
      ["nodetest/calc.test.js::outer::inner", "passed", "nodetest/calc.test.js"],
      ["nodetest/calc.test.js::outer::deeper::deepest", "passed", "nodetest/calc.test.js"],
      ["nodetest/calc.test.js::skipped one", "skipped", "nodetest/calc.test.js"],
      ["nodetest/calc.test.js::todo one", "skipped", "nodetest/calc.test.js"],
    ]);
    expect(report.loadErrorMessages).toEqual([{ file: "nodetest/broken.test.js", message: "Error: Cannot find module './does-not-exist.js'" }]);
  });

  it("a selected run (the launcher's `# ranex select:` line) leaves out what the runner's name filter skipped: it did not run", () => {
    // node-tap --grep: the filtered subtests are skipped `filter: /…/`; a parent selected runs its subtests.
    expect(outcomes(captured("node-tap-select"))).toEqual([
      ["nodetap/calc.test.js::muls", "failed", "nodetap/calc.test.js"],
      ["nodetap/calc.test.js::outer::inner", "passed", "nodetap/calc.test.js"],
    ]);
    // The same points in a run of the whole suite are skipped tests (a command that filters itself).
    const whole = readFileSync(join(FIXTURES, "node-tap-select.tap"), "utf8").replace(/^# ranex select: .*\n/m, "");
    expect(parseTap(whole, treeResolver(join(FIXTURES, "src"))).cases.filter((c) => c.result === "skipped").map((c) => c.id)).toEqual([
      "nodetap/calc.test.js::adds", "nodetap/calc.test.js::skipped one", "nodetap/calc.test.js::todo one",
    ]);
    // ava --match prints nothing for what it leaves out; the broken file was not listed, so not run.
    const ava = captured("ava-select");
    expect(outcomes(ava)).toEqual([["ava/calc.test.mjs::skipped one", "skipped", "ava/calc.test.mjs"], ["ava/calc.test.mjs::muls", "failed", "ava/calc.test.mjs"]]);
    expect(ava.loadErrors).toEqual([]);
    // tape has no name filter: the listed file runs whole.
    expect(outcomes(captured("tape-select")).map(([id]) => id)).toEqual(outcomes(captured("tape")).map(([id]) => id).filter((id) => String(id).startsWith("tape/calc.test.js")));
  });

  it("refuses bare TAP: it names no file", () => {
    expect(() => parseTap("TAP version 13\nok 1 - adds\n1..1\n", () => true)).toThrow(/bare TAP names no test file/);
  });
});

/** Runs the launcher in `tree` and reads its report as a run would (src/measure/junit-read.ts). */
async function launch(tree: string, args: string[], command: string, env: Record<string, string> = {}) {
  const report = join(tempDir("ranex-tap-report-"), "report");
  const run = spawnSync(process.execPath, [LAUNCHER, ...args], { cwd: tree, encoding: "utf8", env: { ...process.env, ...env, RANEX_REPORT: report }, timeout: 120_000 });
  const read = await readJunitReport(report, tree, command);
  if ("error" in read) throw new Error(`${read.error}\n${run.stderr}`);
  return { exit: run.status, report: read.report, text: readFileSync(report, "utf8") };
}

describe("the launcher and the reader, live", () => {
  it("node --test: one subtest per file (globs expanded by the launcher), a file that throws at load is a load error", async () => {
    const tree = writeTree({
      "src/calc.js": "exports.add = (a, b) => a + b;\n",
      "test/calc.test.js": "const { test, describe, it } = require('node:test');\nconst assert = require('node:assert/strict');\nconst { add } = require('../src/calc');\ntest('adds', () => assert.equal(add(2, 3), 5));\ndescribe('calc', () => { it('subs', () => assert.equal(add(2, -3), -1)); });\n",
      "test/deep/more.test.js": "require('node:test')('more', () => {});\n",
      "test/broken.test.js": "require('./missing');\n",
    });
    const command = 'node "$RANEX_REPORTERS/tap-run.cjs" node-test \'test/**/*.test.js\'';
    const { exit, report, text } = await launch(tree, ["node-test", "test/**/*.test.js"], command);
    expect(exit).toBe(1);
    expect(text).toMatch(/^TAP version 14\n# ranex tap-run: node-test\n/);
    expect(report.cases.map((c) => [c.id, c.result])).toEqual([
      ["test/calc.test.js::adds", "passed"], ["test/calc.test.js::calc::subs", "passed"], ["test/deep/more.test.js::more", "passed"],
    ]);
    expect(report.loadErrorMessages).toEqual([{ file: "test/broken.test.js", message: "Error: Cannot find module './missing'" }]);
    expect(report.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  }, 120_000);

  // A stand-in for tape (node_modules/tape/bin/tape) that prints what each test file tells it to:
  // the launcher and the reader are what is tested, with the exits and the TAP a runner can produce.
  const FAKE_TAPE = {
    "node_modules/tape/package.json": JSON.stringify({ name: "tape", bin: { tape: "bin/tape" } }),
    "node_modules/tape/bin/tape": "#!/usr/bin/env node\nconst f = require('node:path').resolve(process.argv[2]);\nconst { out, code } = require(f);\nprocess.stdout.write(out);\nprocess.exit(code);\n",
  };
  const file = (out: string, code = 0) => `module.exports = ${JSON.stringify({ out, code })};\n`;

  it("a bail out, a missing plan, a broken plan and a non-zero exit with nothing failing are load errors, never passes", async () => {
    const tree = writeTree({
      ...FAKE_TAPE,
      "test/ok.js": file("TAP version 13\n# adds\nok 1 should be equal\n\n1..1\n# tests 1\n"),
      "test/bail.js": file("TAP version 13\n# adds\nok 1 should be equal\nBail out! the database is down\n", 1),
      "test/no-plan.js": file("TAP version 13\n# adds\nok 1 should be equal\n"),
      "test/short.js": file("TAP version 13\n1..3\n# adds\nok 1 should be equal\n"),
      "test/exit.js": file("TAP version 13\n# adds\nok 1 should be equal\n1..1\n", 3),
    });
    chmodSync(join(tree, "node_modules/tape/bin/tape"), 0o755);
    const { report } = await launch(tree, ["tape", "test/*.js"], 'node "$RANEX_REPORTERS/tap-run.cjs" tape \'test/*.js\'');
    expect(Object.fromEntries((report.loadErrorMessages ?? []).map((m) => [m.file, m.message]))).toEqual({
      "test/bail.js": "bailed out: the database is down",
      "test/no-plan.js": "the TAP output has no plan (the run ended before it finished)",
      "test/short.js": expect.stringContaining("the TAP output breaks its plan") as unknown as string,
      "test/exit.js": "the run failed with no test failing (exit status 3)",
    });
    // The passes before the trouble are still read; the file's load error is what keeps them from counting alone.
    expect(report.cases.filter((c) => c.result !== "passed")).toEqual([]);
    // A bail out in one file stops that file, not the document: the files after it are read.
    expect(report.cases.map((c) => c.file)).toContain("test/short.js");
  }, 120_000);

  it("a test cannot write outside its own file's subtest: forged top-level lines stay nested in it", async () => {
    const forged = "TAP version 13\n# adds\nnot ok 1 should be equal\n1..1\nok 2 - test/other.js\n# Subtest: test/other.js\n    ok 1 - fine\n    1..1\nok 3 - test/other.js\n1..3\n";
    const tree = writeTree({ ...FAKE_TAPE, "test/forge.js": file(forged, 1) });
    chmodSync(join(tree, "node_modules/tape/bin/tape"), 0o755);
    const { report } = await launch(tree, ["tape", "test/forge.js"], 'node "$RANEX_REPORTERS/tap-run.cjs" tape test/forge.js');
    expect(report.cases.map((c) => [c.id, c.result])).toEqual([["test/forge.js::adds", "failed"]]);
    expect(report.cases.every((c) => c.file === "test/forge.js")).toBe(true);
  }, 120_000);

  it("the canary file named in RANEX_TAP_CANARY runs as one more file, and no runner sees the variable", async () => {
    const tree = writeTree({
      ...FAKE_TAPE,
      "test/env.js": "module.exports = { out: `TAP version 13\\n# sees ${process.env.RANEX_TAP_CANARY ?? 'nothing'}\\nok 1 fine\\n1..1\\n`, code: 0 };\n",
      "test/zzz.test.cjs": file("TAP version 13\n# canary\nnot ok 1 should be equal\n1..1\n", 1),
    });
    chmodSync(join(tree, "node_modules/tape/bin/tape"), 0o755);
    const { report } = await launch(tree, ["tape", "test/env.js"], "node \"$RANEX_REPORTERS/tap-run.cjs\" tape test/env.js", { RANEX_TAP_CANARY: "test/zzz.test.cjs" });
    expect(report.cases.map((c) => [c.id, c.result])).toEqual([["test/env.js::sees nothing", "passed"], ["test/zzz.test.cjs::canary", "failed"]]);
  }, 120_000);
});

// Found on real repositories (issue 22), with stand-ins that print TAP from the file they are given:
// which files the launcher runs for ava, and which flags it gives node-tap by its version.
describe("the launcher meets the runner's own rules", () => {
  const standIn = (pkg: string, version: string, body: string) => ({
    [`node_modules/${pkg}/package.json`]: JSON.stringify({ name: pkg, version, bin: { [pkg]: "bin/run" } }),
    [`node_modules/${pkg}/bin/run`]: `#!/usr/bin/env node\n${body}`,
  });
  const printsFile = "const f = require('node:path').resolve(process.argv[process.argv.length - 1]);\nconst { out, code } = require(f);\nprocess.stdout.write(out);\nprocess.exit(code);\n";
  const file = (out: string, code = 0) => `module.exports = ${JSON.stringify({ out, code })};\n`;

  // chalk/chalk: init's guess for ava (`test/**/*.js`) matched `test/_fixture.js`, a helper ava never
  // runs; through the launcher it ran as a test file and was a load error on every run.
  it("ava: files ava ignores (a leading _, helper and fixture folders) are not run, whatever glob matched them", async () => {
    const tree = writeTree({
      ...standIn("ava", "3.15.0", printsFile),
      "test/calc.js": file("TAP version 13\nok 1 - adds\n1..1\n"),
      "test/_fixture.js": file("", 1),
      "test/helpers/near.js": file("", 1),
      "test/fixtures/data.js": file("", 1),
    });
    const { report } = await launch(tree, ["ava", "test/**/*.js"], 'node "$RANEX_REPORTERS/tap-run.cjs" ava \'test/**/*.js\'');
    expect(report.loadErrors).toEqual([]);
    expect(report.cases.map((c) => [c.id, c.result])).toEqual([["test/calc.js::adds", "passed"]]);
  }, 120_000);

  // npm/node-semver: node-tap 16 refused `--disable-coverage` (node-tap 18's flag), so every file
  // was a load error. Each stand-in refuses the flag its version does not know.
  it.each([["16.3.10", "--disable-coverage"], ["21.8.0", "--no-coverage"]])("node-tap %s is not given %s", async (version, refused) => {
    const refuses = `if (process.argv.includes(${JSON.stringify(refused)})) { console.error("Error: invalid argument: ${refused}"); process.exit(1); }\n`;
    const tree = writeTree({ ...standIn("tap", version, refuses + printsFile), "test/calc.js": file("TAP version 13\nok 1 - adds\n1..1\n") });
    const { report } = await launch(tree, ["tap", "test/*.js"], 'node "$RANEX_REPORTERS/tap-run.cjs" tap \'test/*.js\'');
    expect(report.loadErrors).toEqual([]);
    expect(report.cases.map((c) => c.result)).toEqual(["passed"]);
  }, 120_000);
});

describe("the launcher's own errors", () => {
  it("names a runner it does not know, and a runner package that is not installed", () => {
    const tree = tempDir("ranex-tap-none-");
    mkdirSync(join(tree, "test"));
    writeFileSync(join(tree, "test", "a.js"), "");
    const unknown = spawnSync(process.execPath, [LAUNCHER, "jasmine", "test/a.js"], { cwd: tree, encoding: "utf8", env: { ...process.env, RANEX_REPORT: join(tree, "r") } });
    expect(unknown.status).toBe(2);
    const missing = spawnSync(process.execPath, [LAUNCHER, "tape", "test/a.js"], { cwd: tree, encoding: "utf8", env: { PATH: "/usr/bin:/bin", RANEX_REPORT: join(tree, "r") } });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("ranex: tape cannot be found");
    expect(() => execFileSync(process.execPath, [LAUNCHER, "tape", "x"], { cwd: tree, env: { PATH: "/usr/bin:/bin" }, stdio: "pipe" })).toThrow();
  });
});
