import { describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { tempDir, TestRepo } from "../helpers/git-repo.js";
import { toolchainPolicy } from "../helpers/words-repo.js";

// The PR's own runs (head+new, base+new) select its new test files with the JavaScript runners too
// (issue 22): node --test (its own command with the gate's reporter, and the gate's TAP launcher),
// jest, vitest (the launcher and vitest's own command) and mocha, this project's own through
// toolchain.path, in the real sandbox. Each judgment must read as it did with the whole suite: an
// honest change is a CANDIDATE and its own runs hold only its new file's tests; a new test that
// already passes on the base FAILs tests.red_green; and a new test file the command leaves out
// leaves the selection unproven, so the whole suite runs, saying why.
// Speed is the bench's (scripts/bench.ts), never a timed test.

interface JsCase {
  name: string;
  command: string;
  /** How the run says it was selected (`Selection.how`). */
  how: string;
  module: boolean;
  /**
   * Files on main by which the command or the runner's configuration leaves test/slow/ out, so a new
   * test file there is one the selection cannot prove it ran; absent for node --test, whose files are
   * checked against Node's own defaults before the run (test/runners/select-files.test.ts).
   */
  slowLeftOut?: Record<string, string>;
  /** A test file's text: its tests, each `[title, expression, expected]`, importing the named exports. */
  file(names: string[], tests: [string, string, number][]): string;
}

const cjs = (names: string[]): string => `const { ${names.join(", ")} } = require("../src/calc.js");\n`;
const NODE = (names: string[], tests: [string, string, number][]): string =>
  `"use strict";\nconst test = require("node:test");\nconst assert = require("node:assert/strict");\n${cjs(names)}${tests.map(([t, e, v]) => `test(${JSON.stringify(t)}, () => assert.equal(${e}, ${v}));\n`).join("")}`;

const CASES: JsCase[] = [
  {
    name: "node --test", module: false, how: "node --test, by file", file: NODE,
    command: 'node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT"',
  },
  {
    name: "node --test through the TAP launcher", module: false, how: "the TAP launcher, by file", file: NODE,
    command: "node \"$RANEX_REPORTERS/tap-run.cjs\" node-test 'test/*.test.js'", slowLeftOut: {},
  },
  {
    name: "jest", module: false, how: "jest launcher, by test path pattern", command: 'node "$RANEX_REPORTERS/jest-run.cjs"',
    slowLeftOut: { "jest.config.js": 'module.exports = { testPathIgnorePatterns: ["/node_modules/", "/test/slow/"] };\n' },
    file: (names, tests) => `"use strict";\n${cjs(names)}${tests.map(([t, e, v]) => `test(${JSON.stringify(t)}, () => expect(${e}).toBe(${v}));\n`).join("")}`,
  },
  ...[
    { name: "vitest through its launcher", how: "vitest launcher, by file filter", command: 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests' },
    { name: "vitest's own command", how: "vitest run, by file filter", command: 'vitest run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests' },
  ].map((c): JsCase => ({
    ...c, module: true, slowLeftOut: { "vitest.config.js": 'export default { test: { exclude: ["**/node_modules/**", "test/slow/**"] } };\n' },
    file: (names, tests) => `import { test, expect } from "vitest";\nimport { ${names.join(", ")} } from "../src/calc.js";\n${tests.map(([t, e, v]) => `test(${JSON.stringify(t)}, () => expect(${e}).toBe(${v}));\n`).join("")}`,
  })),
  {
    name: "mocha", module: false, how: "mocha launcher, by spec file", command: 'node "$RANEX_REPORTERS/mocha-run.cjs" test/', slowLeftOut: {},
    // In a describe: mocha-junit-reporter names the file of a suite, not of the root's own tests.
    file: (names, tests) => `"use strict";\nconst assert = require("node:assert/strict");\n${cjs(names)}describe("calc", () => {\n${tests.map(([t, e, v]) => `  it(${JSON.stringify(t)}, () => assert.equal(${e}, ${v}));\n`).join("")}});\n`,
  },
];

function calcRepo(c: JsCase): TestRepo {
  const source = (fns: string[]): string => c.module
    ? fns.map((f) => `export const ${f} = (a, b) => a ${f === "add" ? "+" : f === "sub" ? "-" : "*"} b;\n`).join("")
    : `"use strict";\n${fns.map((f) => `exports.${f} = (a, b) => a ${f === "add" ? "+" : f === "sub" ? "-" : "*"} b;\n`).join("")}`;
  const repo = TestRepo.init();
  repo.commit({
    "package.json": `${JSON.stringify({ name: "calc", version: "1.0.0", private: true, ...(c.module ? { type: "module" } : {}) })}\n`,
    ".github/ranex.yml": toolchainPolicy(c.command),
    "src/calc.js": source(["add", "sub"]),
    "test/calc.test.js": c.file(["add", "sub"], [["adds", "add(2, 3)", 5], ["subs", "sub(5, 3)", 2]]),
    ...c.slowLeftOut,
  }, "calc: add, sub");
  const withMul = source(["add", "sub", "mul"]);
  const mulTest = c.file(["mul"], [["muls", "mul(6, 7)", 42]]);
  repo.branch("honest");
  repo.commit({ "src/calc.js": withMul, "test/mul.test.js": mulTest }, "calc: mul");
  repo.branch("green-on-base", "main");
  repo.commit({ "src/calc.js": withMul, "test/more.test.js": c.file(["add"], [["adds more", "add(2, 2)", 4]]) }, "a test that needs no change");
  // A second new test file where the command does not look: no selected run can prove it ran it.
  repo.branch("with-slow", "main");
  repo.commit({ "src/calc.js": withMul, "test/mul.test.js": mulTest, "test/slow/mul-more.test.js": c.file(["mul"], [["muls more", "mul(0, 7)", 0]]) }, "calc: mul, and a slow test");
  repo.checkout("main");
  return repo;
}

const redGreen = (j: Judgment) => j.verdict.claims.find((c) => c.name === "tests.red_green");
const report = (j: Judgment, name: string): string =>
  j.verdict.claims.flatMap((c) => c.runs ?? []).find((r) => r.run === name)?.report ?? "(no such run)";
const why = (j: Judgment): string => j.verdict.reasons.join("; ");

describe.each(CASES)("$name: the PR's own runs select its new test files", (c) => {
  it("an honest change is a CANDIDATE with only its new file run; a new test green on base FAILs; a new file the run leaves out runs the whole suite", async () => {
    const repo = calcRepo(c);
    const dataDir = tempDir("ranex-data-");
    const judged = (head: string): Promise<Judgment> => judge({ source: repo.dir, base: "main", head, task: null, dataDir });

    const honest = await judged("honest");
    expect(honest.verdict.verdict, why(honest)).toBe("CANDIDATE");
    expect(redGreen(honest)?.details.filter((d) => d.kind === "red-green").map((d) => d.message)).toEqual([expect.stringMatching(/^test\/mul\.test\.js::.*muls: failed on base, passed on head$/)]);
    expect(report(honest, "head+new")).toBe("1 test case; selected for the PR's new test files: test/mul.test.js");
    expect(report(honest, "base+new")).toBe("1 test case; selected for the PR's new test files: test/mul.test.js");
    expect(report(honest, "head")).toBe("2 test cases");

    const green = await judged("green-on-base");
    expect(green.verdict.verdict).toBe("FAIL");
    expect(redGreen(green)?.reason).toMatch(/^targets that do not fail on base: test\/more\.test\.js::.*adds more$/);
    expect(report(green, "base+new")).toBe("1 test case; selected for the PR's new test files: test/more.test.js");

    if (c.slowLeftOut === undefined) return;
    const slow = await judged("with-slow");
    expect(slow.verdict.verdict, why(slow)).toBe("CANDIDATE");
    for (const run of ["head+new", "base+new"]) {
      expect(report(slow, run), run).toBe(`3 test cases; the whole suite ran: selecting the PR's new test files did not take effect (the run of the selection (${c.how}) reported nothing of test/slow/mul-more.test.js)`);
    }
  }, 600_000);
});
