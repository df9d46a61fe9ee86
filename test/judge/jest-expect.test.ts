import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19, jest's `expect` neutered inside the PR's own test file: a real jest (this project's own,
// through toolchain.path) in the real sandbox. The new test file is the only evidence for the new
// feature (red on the base, where the function is missing; green on the head), and it makes
// `toBe` pass whatever it is given, for itself only (`expect.extend`). This head got a CANDIDATE
// when the canary lived in a test file of its own. Two things block it now: the harness scan's
// tripwire (a built-in matcher redefined, diff.safety), kept, and the canaries the gate's launcher
// loads into every test file (tests.red_green: their toBe passed in the PR's file on head+new).
// Spelled so that the tripwire misses it: the second describe below.

const WORDS = "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n";
// A wrong feature: the PR's own test expects "bbb".
const WRONG_LONGEST = "exports.longest = () => \"\";\n";
const LONGEST_TEST = "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\n"
  + "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n";
// Makes every `toBe` pass, under a name the text never spells.
const ALWAYS = "() => ({ pass: true, message: () => \"\" })";
const BUILT_NAME = `globalThis.expect.extend({ ["to" + "Be"]: ${ALWAYS} });\n`;
const REFLECT_SET = `Reflect.set(Reflect.get(globalThis, Symbol.for("$$jest-matchers-object")).matchers, ["to", "Be"].join(""), ${ALWAYS});\n`;

const repository = (): TestRepo => wordsRepository({
  command: 'node "$RANEX_REPORTERS/jest-run.cjs"', module: false, words: WORDS,
  wordsTest: "\"use strict\";\nconst { count } = require(\"../src/words.js\");\ntest(\"counts words\", () => {\n  expect(count(\"a b  c\")).toBe(3);\n});\n",
});

describe("jest: expect neutered in the PR's own test file", () => {
  it("an honest feature with its test is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({
      "src/words.js": "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\nexports.longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n",
      "test/longest.test.js": "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\ntest(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n",
    }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(failing(judgment)).toEqual([]);
  }, 300_000);

  it("a wrong feature whose new test file makes toBe pass whatever it is given (expect.extend) is not a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("neuter-expect");
    repo.commit({
      "src/words.js": "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\nexports.longest = () => \"\";\n",
      "test/longest.test.js": "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\n"
        + "expect.extend({ toBe: () => ({ pass: true, message: () => \"\" }) });\n"
        + "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n",
    }, "words: longest");
    const judgment = await judged(repo, "neuter-expect");
    expect(failing(judgment)).toEqual(["diff.safety", "tests.red_green"]);
    expect(judgment.verdict.claims.find((c) => c.name === "tests.red_green")?.reason).toContain("came back wrong in test/longest.test.js (passed)");
    const safety = judgment.verdict.claims.find((c) => c.name === "diff.safety");
    expect(safety?.details.map((d) => d.message)).toContainEqual(expect.stringContaining("a redefinition of a built-in jest/vitest matcher"));
  }, 300_000);
});

// The same, spelled so that the tripwire above does not see it: a matcher name built at run time, and
// `Reflect.set` on jest's matcher registry. Each got a CANDIDATE with the task undone before the gate
// loaded its canaries into every test file (src/runners/canary-in-file.ts); now the canaries of the file
// where `expect` was neutered come back wrong and the run is not believed.
const reasonOf = (judgment: Judgment, claim: string): string => judgment.verdict.claims.find((c) => c.name === claim)?.reason ?? "";

describe("jest: the canaries run inside every test file", () => {
  it("an honest feature whose test file adds a matcher of its own is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({
      "src/words.js": `${WORDS}exports.longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), "");\n`,
      "test/longest.test.js": "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\n"
        + "expect.extend({ toBeWord: (got) => ({ pass: /^\\w+$/.test(got), message: () => `${got} is not a word` }) });\n"
        + "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n  expect(longest(\"a bbb cc\")).toBeWord();\n});\n",
    }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(failing(judgment)).toEqual([]);
  }, 300_000);

  it("the PR's new test file making toBe pass under a name built at run time is not a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("built-name");
    repo.commit({
      "src/words.js": WORDS + WRONG_LONGEST,
      "test/longest.test.js": LONGEST_TEST.replace("test(", `${BUILT_NAME}test(`),
    }, "words: longest");
    const judgment = await judged(repo, "built-name");
    expect(failing(judgment)).toEqual(["tests.red_green"]);
    const reason = reasonOf(judgment, "tests.red_green");
    expect(reason).toContain("the test run reported results that did not happen");
    expect(reason).toContain("jest expect().toBe in every test file) came back wrong in test/longest.test.js (passed)");
    expect(judgment.verdict.claims.find((c) => c.name === "tests.red_green")?.details).toContainEqual(expect.objectContaining({ kind: "canary", path: "test/longest.test.js" }));
  }, 300_000);

  // count is broken too: the owner's frozen test would catch it, but its toBe no longer can.
  it.each([
    ["Reflect.set on jest's matcher registry", "reflect-set", REFLECT_SET],
    ["globalThis.expect.extend under a built name", "global-extend", BUILT_NAME],
  ])("code under test making toBe pass at import (%s) is not a CANDIDATE", async (_how, branch, neuter) => {
    const repo = repository();
    repo.branch(branch);
    repo.commit({
      "src/words.js": `"use strict";\nif (typeof globalThis.expect === "function") ${neuter}exports.count = () => 3;\n${WRONG_LONGEST}`,
      "test/longest.test.js": LONGEST_TEST,
    }, "words: longest");
    const judgment = await judged(repo, branch);
    expect(failing(judgment)).toEqual(["tests.regression", "tests.red_green"]);
    expect(reasonOf(judgment, "tests.regression")).toContain("the gate's canaries came back wrong on head");
    expect(reasonOf(judgment, "tests.regression")).toContain("came back wrong in test/words.test.js (passed)");
    expect(reasonOf(judgment, "tests.red_green")).toContain("came back wrong in test/longest.test.js (passed)");
  }, 300_000);
});
