import { realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { TestRepo, tempDir } from "../helpers/git-repo.js";

// Issue 19, jest's `expect` neutered in a test file's own context, spelled so that the harness scan's
// tripwire (test/judge/jest-expect.test.ts) does not see it: a matcher name built at run time, and
// `Reflect.set` on jest's matcher registry. Each got a CANDIDATE with the task undone before the
// gate loaded its canaries into every test file (src/runners/canary-jest.ts); now the canaries of the
// file where `expect` was neutered come back wrong and the run is not believed. A real jest (this
// project's own, through toolchain.path) in the real sandbox.

const TOOLCHAIN = realpathSync(join(import.meta.dirname, "..", "..", "node_modules", ".bin"));
const WORDS = "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n";
// A wrong feature: the PR's own test expects "bbb".
const WRONG_LONGEST = "exports.longest = () => \"\";\n";
const LONGEST_TEST = "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\n"
  + "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n";
// Makes every `toBe` pass, under a name the text never spells.
const ALWAYS = "() => ({ pass: true, message: () => \"\" })";
const BUILT_NAME = `globalThis.expect.extend({ ["to" + "Be"]: ${ALWAYS} });\n`;
const REFLECT_SET = `Reflect.set(Reflect.get(globalThis, Symbol.for("$$jest-matchers-object")).matchers, ["to", "Be"].join(""), ${ALWAYS});\n`;

function repository(): TestRepo {
  const repo = TestRepo.init();
  repo.commit({
    "package.json": JSON.stringify({ name: "words", version: "1.0.0", private: true }) + "\n",
    ".github/ranex.yml": [
      "version: 1",
      "tests:",
      "  files: ['test/**']",
      "  command: 'node \"$RANEX_REPORTERS/jest-run.cjs\"'",
      "  timeout: 120",
      `toolchain:\n  path: ['${TOOLCHAIN}']`,
      "scope:\n  allow: ['src/**', 'test/**']",
      "require: [diff.frozen, diff.scope, diff.safety, secrets, tests.regression, tests.red_green]",
      "",
    ].join("\n"),
    "src/words.js": WORDS,
    "test/words.test.js": "\"use strict\";\nconst { count } = require(\"../src/words.js\");\ntest(\"counts words\", () => {\n  expect(count(\"a b  c\")).toBe(3);\n});\n",
  }, "words: count");
  return repo;
}

async function judged(repo: TestRepo, head: string): Promise<Judgment> {
  return judge({ source: repo.dir, base: "main", head, task: null, dataDir: tempDir("ranex-data-") });
}

const failing = (judgment: Judgment): string[] =>
  judgment.verdict.claims.filter((c) => c.name !== "approval.independent" && c.status !== "pass").map((c) => c.name);

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

  it("code under test making toBe pass at import, through Reflect.set on jest's matchers, is not a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("reflect-set");
    repo.commit({
      // count is broken too: the owner's frozen test would catch it, but its toBe no longer can.
      "src/words.js": `"use strict";\nif (typeof globalThis.expect === "function") ${REFLECT_SET}exports.count = () => 3;\n${WRONG_LONGEST}`,
      "test/longest.test.js": LONGEST_TEST,
    }, "words: longest");
    const judgment = await judged(repo, "reflect-set");
    expect(failing(judgment)).toEqual(["tests.regression", "tests.red_green"]);
    expect(reasonOf(judgment, "tests.regression")).toContain("came back wrong in test/words.test.js (passed)");
    expect(reasonOf(judgment, "tests.red_green")).toContain("came back wrong in test/longest.test.js (passed)");
  }, 300_000);

  it("code under test making toBe pass at import through globalThis.expect.extend is not a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("global-extend");
    repo.commit({
      "src/words.js": `"use strict";\nif (typeof globalThis.expect === "function") ${BUILT_NAME}exports.count = () => 3;\n${WRONG_LONGEST}`,
      "test/longest.test.js": LONGEST_TEST,
    }, "words: longest");
    const judgment = await judged(repo, "global-extend");
    expect(failing(judgment)).toEqual(["tests.regression", "tests.red_green"]);
    expect(reasonOf(judgment, "tests.regression")).toContain("the gate's canaries came back wrong on head");
  }, 300_000);
});
