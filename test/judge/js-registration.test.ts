import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19, the third red team's hole: code under test that wraps the runner's test registration, so
// that the owner's frozen test is registered with another body. A real jest and a real vitest (this
// project's own, through toolchain.path and the gate's launchers) in the real sandbox. `count` is
// broken so that only the frozen `counts words` sees it (two spaces), and `src/words.js` gives that
// test an empty body at import: by wrapping `globalThis.test`, or by reaching the runner's own record
// of the file's tests (jest-circus's state through its symbol). Each was a CANDIDATE with the task
// undone; now the gate's setup file, loaded into every test file before it, sees the frozen file's
// test registered through a file the PR can change (or its body swapped after registration) and the
// run is not believed (tests.regression, unsafe, naming the test and the file).
// The honest control keeps the shapes that build tests by code: `test.each`, `describe.each`, a loop,
// and a frozen helper of test/ that registers a test for its caller.

const BROKEN = "exports.count = (text) => text.split(\" \").length;\n";
const LONGEST = "exports.longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
const LONGEST_TEST = "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\n"
  + "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n";

const WORDS_TEST = [
  "\"use strict\";",
  "const { count } = require(\"../src/words.js\");",
  "const { wordCase } = require(\"./helpers/cases.js\");",
  "test(\"counts words\", () => {\n  expect(count(\"a b  c\")).toBe(3);\n});",
  "test.each([[\"a\", 1], [\"a b\", 2]])(\"counts %s\", (text, n) => {\n  expect(count(text)).toBe(n);\n});",
  "describe.each([[\"x\"], [\"y\"]])(\"the word %s\", (word) => {\n  test(\"is one word\", () => {\n    expect(count(word)).toBe(1);\n  });\n});",
  "for (const [text, n] of [[\"p q\", 2], [\"p q r\", 3]]) {\n  test(`counts ${n} words`, () => {\n    expect(count(text)).toBe(n);\n  });\n}",
  "wordCase(\"one word\", \"hello\", 1);",
  "",
].join("\n");
// A frozen helper of the test folder that registers a test for its caller: the honest wrapper.
const CASES = "\"use strict\";\nexports.wordCase = (name, text, n) => test(name, () => {\n  expect(require(\"../../src/words.js\").count(text)).toBe(n);\n});\n";

const jestRepository = (): TestRepo => {
  const repo = wordsRepository({
    command: 'node "$RANEX_REPORTERS/jest-run.cjs"', module: false,
    words: "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n", wordsTest: WORDS_TEST,
  });
  repo.commit({ "test/helpers/cases.js": CASES }, "tests: a helper that registers a case");
  return repo;
};

// Wraps the global registration so that `counts words` gets an empty body.
const WRAP_GLOBAL = [
  "const real = globalThis.test;",
  "if (typeof real === \"function\") {",
  "  const wrapped = function (name, fn, timeout) { return real(name, name === \"counts words\" ? () => {} : fn, timeout); };",
  "  Object.assign(wrapped, real);",
  "  globalThis.test = wrapped;",
  "  globalThis.it = wrapped;",
  "}",
  "",
].join("\n");
// Reaches jest-circus's record of the file's tests once the file registered them, and swaps the body.
const CIRCUS_STATE = [
  "const key = Object.getOwnPropertySymbols(globalThis).find((s) => s.description === \"JEST_STATE_SYMBOL\");",
  "if (key !== undefined) queueMicrotask(() => {",
  "  const walk = (block) => block.children.forEach((c) => (c.type === \"test\" ? c.name === \"counts words\" && (c.fn = () => {}) : walk(c)));",
  "  walk(globalThis[key].rootDescribeBlock);",
  "});",
  "",
].join("\n");

const reasonOf = (judgment: Judgment, claim: string): string => judgment.verdict.claims.find((c) => c.name === claim)?.reason ?? "";

describe("jest: a frozen test registered with another body by code under test", () => {
  it("an honest feature beside tests built by test.each, describe.each, a loop and a helper is a CANDIDATE", async () => {
    const repo = jestRepository();
    repo.branch("honest");
    repo.commit({ "src/words.js": `"use strict";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n${LONGEST}`, "test/longest.test.js": LONGEST_TEST }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it.each([
    ["globalThis.test wrapped at import", "wrap-global", WRAP_GLOBAL, "registered through src/words.js"],
    ["jest-circus's state reached through its symbol", "circus-state", CIRCUS_STATE, "body was replaced after it was registered"],
  ])("%s: not a CANDIDATE", async (_how, branch, trick, seen) => {
    const repo = jestRepository();
    repo.branch(branch);
    repo.commit({ "src/words.js": `"use strict";\n${trick}${BROKEN}${LONGEST}`, "test/longest.test.js": LONGEST_TEST }, "words: longest");
    const judgment = await judged(repo, branch);
    expect(failing(judgment)).toContain("tests.regression");
    const reason = reasonOf(judgment, "tests.regression");
    expect(reason).toContain("the gate's canaries came back wrong on head");
    expect(reason).toContain("test/words.test.js");
    expect(judgment.verdict.claims.find((c) => c.name === "tests.regression")?.details.map((d) => d.message))
      .toContainEqual(expect.stringMatching(new RegExp(`counts words.*${seen}`)));
  }, 300_000);
});

// vitest, with `globals: true`: the same wrapper on `globalThis.test`, and a body swapped between
// collection and the test's start (vitest's own `setFn`, from a beforeAll that code under test adds).
const V_WORDS = "export const count = (text) => text.split(/\\s+/).filter(Boolean).length;\n";
const V_BROKEN = "export const count = (text) => text.split(\" \").length;\n";
const V_LONGEST = "export const longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
const V_LONGEST_TEST = "import { longest } from \"../src/words.js\";\n"
  + "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n";
const V_WORDS_TEST = WORDS_TEST.replace("\"use strict\";\nconst { count } = require(\"../src/words.js\");\nconst { wordCase } = require(\"./helpers/cases.js\");",
  "import { count } from \"../src/words.js\";\nimport { wordCase } from \"./helpers/cases.js\";");
const V_CASES = "import { count } from \"../../src/words.js\";\nexport const wordCase = (name, text, n) => test(name, () => {\n  expect(count(text)).toBe(n);\n});\n";
// vitest's registration functions are chainables that need their own `this`: a Proxy keeps it.
const V_WRAP_GLOBAL = [
  "const real = globalThis.test;",
  "if (typeof real === \"function\") {",
  "  const wrapped = new Proxy(real, { apply(target, self, args) { if (args[0] === \"counts words\") args[1] = () => {}; return Reflect.apply(target, self, args); } });",
  "  globalThis.test = wrapped;",
  "  globalThis.it = wrapped;",
  "}",
  "",
].join("\n");
const V_SET_FN = [
  "import { beforeAll } from \"vitest\";",
  "import { setFn } from \"vitest/suite\";",
  "beforeAll(function ({}, file) {",
  "  const walk = (suite) => suite.tasks.forEach((t) => (t.type === \"test\" ? t.name === \"counts words\" && setFn(t, () => {}) : t.tasks && walk(t)));",
  "  walk(file);",
  "});",
  "",
].join("\n");

const vitestRepository = (): TestRepo => {
  const repo = wordsRepository({
    command: 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT"', module: true,
    words: V_WORDS, wordsTest: V_WORDS_TEST,
  });
  repo.commit({ "test/helpers/cases.js": V_CASES, "vitest.config.mjs": "export default { test: { globals: true } };\n" }, "tests: globals, and a helper that registers a case");
  return repo;
};

describe("vitest: a frozen test registered with another body by code under test", () => {
  it("an honest feature beside tests built by test.each, describe.each, a loop and a helper is a CANDIDATE", async () => {
    const repo = vitestRepository();
    repo.branch("honest");
    repo.commit({ "src/words.js": V_WORDS + V_LONGEST, "test/longest.test.js": V_LONGEST_TEST }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it.each([
    ["globalThis.test wrapped at import", "wrap-global", V_WRAP_GLOBAL, "globalThis.test was replaced by src/words.js"],
    ["a body swapped with vitest's setFn from a beforeAll of the code under test", "set-fn", V_SET_FN, "counts words.*body was replaced after it was registered"],
  ])("%s: not a CANDIDATE", async (_how, branch, trick, seen) => {
    const repo = vitestRepository();
    repo.branch(branch);
    repo.commit({ "src/words.js": `${trick}${V_BROKEN}${V_LONGEST}`, "test/longest.test.js": V_LONGEST_TEST }, "words: longest");
    const judgment = await judged(repo, branch);
    expect(failing(judgment)).toContain("tests.regression");
    const reason = reasonOf(judgment, "tests.regression");
    expect(reason).toContain("the gate's canaries came back wrong on head");
    expect(reason).toMatch(new RegExp(`test/words.test.js \\(failed: .*${seen}`));
  }, 300_000);
});

// node:test: the test file imports the code under test before it takes `test` from node:test, and
// the code under test replaced the module's exported `test` at import. Every file runs in a process of
// its own; the registration canary fails in the frozen file's process, naming the writer.
const N_WORDS_TEST = [
  "\"use strict\";",
  "const { count } = require(\"../src/words.js\");",
  "const { test, describe } = require(\"node:test\");",
  "const assert = require(\"node:assert/strict\");",
  "test(\"counts words\", () => {\n  assert.equal(count(\"a b  c\"), 3);\n});",
  "for (const [text, n] of [[\"p q\", 2], [\"p q r\", 3]]) {\n  test(`counts ${n} words`, () => {\n    assert.equal(count(text), n);\n  });\n}",
  "describe(\"one word\", () => {\n  test(\"hello\", () => assert.equal(count(\"hello\"), 1));\n});",
  "",
].join("\n");
const N_LONGEST_TEST = "\"use strict\";\nconst { test } = require(\"node:test\");\nconst assert = require(\"node:assert/strict\");\n"
  + "const { longest } = require(\"../src/words.js\");\ntest(\"finds the longest word\", () => {\n  assert.equal(longest(\"a bbb cc\"), \"bbb\");\n});\n";
// node:test names a test's file by its caller: the wrapper is compiled under the test file's name, so
// that the tests keep their ids.
const N_WRAP_EXPORTS = [
  "const nodeTest = require(\"node:test\");",
  "const file = require(\"node:path\").join(__dirname, \"..\", \"test\", \"words.test.js\");",
  "const wrap = \"(real) => function test(name, ...rest) { return real(name, ...(name === 'counts words' ? [() => {}] : rest)); }\";",
  "nodeTest.test = require(\"node:vm\").runInThisContext(wrap, { filename: file })(nodeTest.test);",
  "",
].join("\n");

describe("node:test: a frozen test registered with another body by code under test", () => {
  const repository = (): TestRepo => wordsRepository({
    command: 'node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT" test/', module: false,
    words: "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n", wordsTest: N_WORDS_TEST,
  });

  it("an honest feature is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": `"use strict";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n${LONGEST}`, "test/longest.test.js": N_LONGEST_TEST }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it("node:test's exported test replaced at import: not a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("wrap-exports");
    repo.commit({ "src/words.js": `"use strict";\n${N_WRAP_EXPORTS}${BROKEN}${LONGEST}`, "test/longest.test.js": N_LONGEST_TEST }, "words: longest");
    const judgment = await judged(repo, "wrap-exports");
    expect(failing(judgment)).toContain("tests.regression");
    const reason = reasonOf(judgment, "tests.regression");
    expect(reason).toContain("the gate's canaries came back wrong on head");
    expect(reason).toContain("test/words.test.js: node:test's exports.test was replaced by src/words.js");
  }, 300_000);
});

// mocha: every file in one process, its globals set again before each file; the code under test
// wraps `it` while the frozen file loads it. The frozen test then runs a body that fails saying why,
// and the registration canary, run after every file loaded, names it.
const M_WORDS_TEST = N_WORDS_TEST.replace("const { test, describe } = require(\"node:test\");\n", "").replace(/\btest\(/g, "it(");
const M_LONGEST_TEST = N_LONGEST_TEST.replace("const { test } = require(\"node:test\");\n", "").replace(/\btest\(/g, "it(");
const M_WRAP_IT = "const real = globalThis.it;\nif (typeof real === \"function\") globalThis.it = function (name, fn) { return real.call(this, name, name === \"counts words\" ? () => {} : fn); };\n";

describe("mocha: a frozen test registered with another body by code under test", () => {
  const repository = (): TestRepo => wordsRepository({
    command: 'node "$RANEX_REPORTERS/mocha-run.cjs"', module: false,
    words: "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n", wordsTest: M_WORDS_TEST,
  });

  it("an honest feature is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": `"use strict";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n${LONGEST}`, "test/longest.test.js": M_LONGEST_TEST }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it("mocha's global it wrapped at import: not a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("wrap-it");
    repo.commit({ "src/words.js": `"use strict";\n${M_WRAP_IT}${BROKEN}${LONGEST}`, "test/longest.test.js": M_LONGEST_TEST }, "words: longest");
    const judgment = await judged(repo, "wrap-it");
    expect(failing(judgment)).toContain("tests.regression");
    const reason = reasonOf(judgment, "tests.regression");
    expect(reason).toContain("the gate's canaries came back wrong on head");
    expect(reason).toContain("test/words.test.js: \"counts words\" was registered through src/words.js");
  }, 300_000);
});

// A frozen test file that registers its tests through a helper of the tree outside the frozen paths
// (a shared suite factory under src/, as real repositories keep one). The helper is the owner's code
// as long as the pull request leaves it alone: an honest PR is a CANDIDATE (it voided every run,
// the base's too, before the registration watch held only the PR's changed files). A PR that changes
// the helper so that it registers the frozen test with an empty body is what it was: unsafe.
describe("a frozen test file that registers its tests through a helper under src/", () => {
  const COUNT = "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n";
  const honest = `${COUNT}${LONGEST}`;
  const judgedBranch = async (repo: TestRepo, branch: string, files: Record<string, string>): Promise<Judgment> => {
    repo.branch(branch);
    repo.commit(files, "words: longest");
    return judged(repo, branch);
  };
  const candidate = (judgment: Judgment): string[] =>
    judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`);
  const unsafe = (judgment: Judgment, seen: string): void => {
    expect(failing(judgment)).toContain("tests.regression");
    expect(judgment.verdict.claims.find((c) => c.name === "tests.regression")?.class).toBe("unsafe");
    const reason = reasonOf(judgment, "tests.regression");
    expect(reason).toContain("the gate's canaries came back wrong on head");
    expect(reason).toContain(seen);
  };

  // jest: the helper registers each test with the global `test`; jest-circus tells the watch of each.
  const J_SUITE = "\"use strict\";\n// The repository's suite factory: one test per case.\n"
    + "exports.check = (name, body) => test(name, body);\n"
    + "exports.cases = (name, body, rows) => { for (const row of rows) test(`${name} ${row[0]}`, () => body(...row)); };\n";
  const J_SUITE_FORGED = J_SUITE.replace("exports.check = (name, body) => test(name, body);", "exports.check = (name, body) => test(name, name === \"counts words\" ? () => {} : body);");
  const J_WORDS_TEST = "\"use strict\";\nconst { count } = require(\"../src/words.js\");\nconst suite = require(\"../src/testing/suite.js\");\n"
    + "suite.check(\"counts words\", () => {\n  expect(count(\"a b  c\")).toBe(3);\n});\n"
    + "suite.cases(\"counts\", (text, n) => {\n  expect(count(text)).toBe(n);\n}, [[\"a\", 1], [\"a b\", 2]]);\n";
  const jestKit = (): TestRepo => {
    const repo = wordsRepository({ command: 'node "$RANEX_REPORTERS/jest-run.cjs"', module: false, words: COUNT, wordsTest: J_WORDS_TEST });
    repo.commit({ "src/testing/suite.js": J_SUITE }, "tests: the suite factory");
    return repo;
  };

  it("jest: an honest PR that leaves the helper alone is a CANDIDATE", async () => {
    const judgment = await judgedBranch(jestKit(), "honest", { "src/words.js": honest, "test/longest.test.js": LONGEST_TEST });
    expect(candidate(judgment)).toEqual([]);
  }, 300_000);

  it("jest: a PR that changes the helper to register the frozen test with an empty body is unsafe", async () => {
    const judgment = await judgedBranch(jestKit(), "forged", {
      "src/words.js": `"use strict";\n${BROKEN}${LONGEST}`, "src/testing/suite.js": J_SUITE_FORGED, "test/longest.test.js": LONGEST_TEST,
    });
    unsafe(judgment, "\"counts words\" was registered through src/testing/suite.js");
  }, 300_000);

  // The helper left alone in the diff, but rewritten by the changed code under test while the run goes,
  // before the frozen file loads it: a file of the tree changed after the gate gave the run its tree.
  it("jest: code under test that rewrites the unchanged helper during the run is unsafe", async () => {
    const rewrite = `require("node:fs").writeFileSync(require("node:path").join(__dirname, "testing", "suite.js"), ${JSON.stringify(J_SUITE_FORGED)});\n`;
    const judgment = await judgedBranch(jestKit(), "rewritten", { "src/words.js": `"use strict";\n${rewrite}${BROKEN}${LONGEST}`, "test/longest.test.js": LONGEST_TEST });
    unsafe(judgment, "\"counts words\" was registered through src/testing/suite.js (written during the run)");
  }, 300_000);

  // node:test: the kit wraps the module's `describe` (each suite's tests one at a time) before the
  // test file takes it; the watch sees the module's exports written.
  const N_KIT = "\"use strict\";\n// The repository's test kit: each suite runs its tests one at a time.\nconst nodeTest = require(\"node:test\");\n"
    + "const real = nodeTest.describe;\nnodeTest.describe = function describe(name, fn) { return real(name, { concurrency: 1 }, fn); };\n";
  // Compiled under the test file's name, as the attack above, so that node:test keeps the tests' ids.
  const N_KIT_FORGED = `${N_KIT}${N_WRAP_EXPORTS.replace("const nodeTest = require(\"node:test\");\n", "")}`;
  const N_KIT_TEST = N_WORDS_TEST.replace("\"use strict\";\n", "\"use strict\";\nrequire(\"../src/testing/kit.js\");\n");
  const nodeKit = (): TestRepo => {
    const repo = wordsRepository({
      command: 'node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT" test/', module: false,
      words: COUNT, wordsTest: N_KIT_TEST,
    });
    repo.commit({ "src/testing/kit.js": N_KIT }, "tests: the kit");
    return repo;
  };

  it("node:test: an honest PR that leaves the kit alone is a CANDIDATE", async () => {
    const judgment = await judgedBranch(nodeKit(), "honest", { "src/words.js": honest, "test/longest.test.js": N_LONGEST_TEST });
    expect(candidate(judgment)).toEqual([]);
  }, 300_000);

  it("node:test: a PR that changes the kit to give the frozen test an empty body is unsafe", async () => {
    const judgment = await judgedBranch(nodeKit(), "forged", {
      "src/words.js": `"use strict";\n${BROKEN}${LONGEST}`, "src/testing/kit.js": N_KIT_FORGED, "test/longest.test.js": N_LONGEST_TEST,
    });
    // The kit's first write is the one named: the registration canary fails at once.
    unsafe(judgment, "test/words.test.js: node:test's exports.describe was replaced by src/testing/kit.js");
  }, 300_000);

  // mocha: the helper registers with the global `it`; every test added has its stack read.
  const M_SUITE = J_SUITE.replace(/\btest\(/g, "it(");
  const M_SUITE_FORGED = J_SUITE_FORGED.replace(/\btest\(/g, "it(");
  const M_KIT_TEST = "\"use strict\";\nconst assert = require(\"node:assert/strict\");\nconst { count } = require(\"../src/words.js\");\nconst suite = require(\"../src/testing/suite.js\");\n"
    + "suite.check(\"counts words\", () => {\n  assert.equal(count(\"a b  c\"), 3);\n});\n"
    + "suite.cases(\"counts\", (text, n) => {\n  assert.equal(count(text), n);\n}, [[\"a\", 1], [\"a b\", 2]]);\n";
  const mochaKit = (): TestRepo => {
    const repo = wordsRepository({ command: 'node "$RANEX_REPORTERS/mocha-run.cjs"', module: false, words: COUNT, wordsTest: M_KIT_TEST });
    repo.commit({ "src/testing/suite.js": M_SUITE }, "tests: the suite factory");
    return repo;
  };

  it("mocha: an honest PR that leaves the helper alone is a CANDIDATE", async () => {
    const judgment = await judgedBranch(mochaKit(), "honest", { "src/words.js": honest, "test/longest.test.js": M_LONGEST_TEST });
    expect(candidate(judgment)).toEqual([]);
  }, 300_000);

  it("mocha: a PR that changes the helper to register the frozen test with an empty body is unsafe", async () => {
    const judgment = await judgedBranch(mochaKit(), "forged", {
      "src/words.js": `"use strict";\n${BROKEN}${LONGEST}`, "src/testing/suite.js": M_SUITE_FORGED, "test/longest.test.js": M_LONGEST_TEST,
    });
    unsafe(judgment, "test/words.test.js: \"counts words\" was registered through src/testing/suite.js");
  }, 300_000);
});
