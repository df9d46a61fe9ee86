import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "./git-repo.js";
import { wordsRepository } from "./words-repo.js";

// The words library of the in-process attacks on jest and vitest (issue 19: test/judge/js-*.test.ts),
// judged with this project's own runners in the real sandbox: the owner's frozen test of `count`, and
// heads that add `longest` with its own test beside an honest or a broken `count`.

const LONGEST = "const longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
/** `count` as the honest heads change it. */
export const HONEST_COUNT = "(text) => text.trim().split(/\\s+/).filter((w) => w.length > 0).length";
/** The frozen test every head is held to. */
export const FROZEN_COUNT_TEST = "test(\"counts words\", () => {\n  expect(count(\"a b  c\")).toEqual(3);\n});\n";
const LONGEST_TEST = "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n";

export interface WordsRunner {
  runner: "jest" | "vitest";
  /** The base: src/words.js, the frozen test (`body` after the file's imports), and more files the owner has. */
  repository(options?: { body?: string; more?: (runner: WordsRunner) => Record<string, string>; globals?: boolean }): TestRepo;
  /** src/words.js with `count` as given and `prefix` (the attack's code) first. */
  words(count: string, prefix?: string): string;
  /** A test file of the runner's: its imports (`names` from src/words.js), then `body`. */
  testFile(names: string, body: string, globals?: boolean): string;
  /** The head's own test of `longest` (with `body` instead, when given). */
  longestTest(body?: string): string;
  /** How a test file names the runner's spy function (`jest.spyOn`, `vi.spyOn`). */
  spyOn: string;
}

const jest: WordsRunner = {
  runner: "jest",
  repository: ({ body = FROZEN_COUNT_TEST, more } = {}) => withMore(wordsRepository({
    command: 'node "$RANEX_REPORTERS/jest-run.cjs"', module: false,
    words: "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n",
    wordsTest: jest.testFile("count", body),
  }), more?.(jest)),
  words: (count, prefix = "") => `"use strict";\n${prefix}exports.count = ${count};\n${LONGEST}exports.longest = longest;\n`,
  testFile: (names, body) => `"use strict";\n${names === "" ? "" : `const { ${names} } = require("../src/words.js");\n`}${body}`,
  longestTest: (body = LONGEST_TEST) => jest.testFile("longest", body),
  spyOn: "jest.spyOn",
};

const vitest: WordsRunner = {
  runner: "vitest",
  repository: ({ body = FROZEN_COUNT_TEST, more, globals = false } = {}) => withMore(wordsRepository({
    command: `node "$RANEX_REPORTERS/vitest-run.cjs" run${globals ? " --globals" : ""} --reporter=junit --outputFile="$RANEX_JUNIT"`, module: true,
    words: "export const count = (text) => text.split(/\\s+/).filter(Boolean).length;\n",
    wordsTest: vitest.testFile("count", body, globals),
  }), more?.(vitest)),
  words: (count, prefix = "") => `${prefix}export const count = ${count};\nexport ${LONGEST}`,
  testFile: (names, body, globals = false) => `${globals ? "" : "import { expect, test, vi } from \"vitest\";\n"}${names === "" ? "" : `import { ${names} } from "../src/words.js";\n`}${body}`,
  longestTest: (body = LONGEST_TEST) => vitest.testFile("longest", body),
  spyOn: "vi.spyOn",
};

export const WORDS_RUNNERS: readonly WordsRunner[] = [jest, vitest];

function withMore(repo: TestRepo, more: Record<string, string> | undefined): TestRepo {
  if (more !== undefined) repo.commit(more, "the owner's other tests");
  return repo;
}

/** The claims that did not pass (the reviewer's own aside), as `claim: reason`: an honest head has none. */
export const unpassed = (judgment: Judgment): string[] =>
  judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`);

export const reasonOf = (judgment: Judgment, claim: string): string => judgment.verdict.claims.find((c) => c.name === claim)?.reason ?? "";
