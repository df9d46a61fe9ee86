import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19, the intrinsics where a jest or vitest test file runs: `expect`'s equality reads `Object.is`
// of the test file's context (jest: a `vm` context of its own, which the preload never compares).
// Code under test that makes `Object.is` say true for its own wrong answer only, and puts it back
// before the process ends, passed every frozen toEqual with the canaries honest: CANDIDATE with
// `count` broken on both runners before the in-file setup compared the intrinsics
// (src/runners/intrinsics-in-file.ts). A real jest and vitest in the real sandbox.

const SWAP = "const realIs = Object.is;\nObject.is = (a, b) => realIs(a, b) || (a === 0 && typeof b === \"number\");\n"
  + "process.once(\"beforeExit\", () => { Object.is = realIs; });\n";
const LONGEST = "const longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
const FROZEN = "test(\"counts words\", () => {\n  expect(count(\"a b  c\")).toEqual(3);\n  expect(stats(\"a b\")).toEqual({ words: 2 });\n});\n";
// A frozen test that leaves a spy on Math.max in place: the base's run replaces it too, so it is the owner's.
const spyTest = (spy: string): string => `test("spies on Math.max", () => {\n  ${spy}(Math, "max");\n  expect(Math.max(1, 2)).toBe(2);\n});\n`;
const reasonOf = (judgment: Judgment, claim: string): string => judgment.verdict.claims.find((c) => c.name === claim)?.reason ?? "";

const runners = [
  {
    runner: "jest",
    repository: (): TestRepo => {
      const repo = wordsRepository({
        command: 'node "$RANEX_REPORTERS/jest-run.cjs"', module: false,
        words: "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\nexports.stats = (text) => ({ words: exports.count(text) });\n",
        wordsTest: "\"use strict\";\nconst { count, stats } = require(\"../src/words.js\");\n" + FROZEN,
      });
      repo.commit({ "test/spy.test.js": "\"use strict\";\n" + spyTest("jest.spyOn") }, "a spy left in place");
      return repo;
    },
    words: (count: string, swap: string) => `"use strict";\n${swap}exports.count = ${count};\nexports.stats = (text) => ({ words: exports.count(text) });\n${LONGEST}exports.longest = longest;\n`,
    longestTest: "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\ntest(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n",
  },
  {
    runner: "vitest",
    repository: (): TestRepo => {
      const repo = wordsRepository({
        command: 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT"', module: true,
        words: "export const count = (text) => text.split(/\\s+/).filter(Boolean).length;\nexport const stats = (text) => ({ words: count(text) });\n",
        wordsTest: "import { expect, test } from \"vitest\";\nimport { count, stats } from \"../src/words.js\";\n" + FROZEN,
      });
      repo.commit({ "test/spy.test.js": "import { expect, test, vi } from \"vitest\";\n" + spyTest("vi.spyOn") }, "a spy left in place");
      return repo;
    },
    words: (count: string, swap: string) => `${swap}export const count = ${count};\nexport const stats = (text) => ({ words: count(text) });\nexport ${LONGEST}`,
    longestTest: "import { expect, test } from \"vitest\";\nimport { longest } from \"../src/words.js\";\ntest(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n",
  },
];

describe.each(runners)("$runner: the intrinsics of the test file's context", ({ runner, repository, words, longestTest }) => {
  it("an honest change, beside a frozen spy the base leaves in place too, is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": words("(text) => text.trim().split(/\\s+/).filter((w) => w.length > 0).length", ""), "test/longest.test.js": longestTest }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it("Object.is made to agree with a wrong count, and put back before the process ends, passes no frozen toEqual", async () => {
    const repo = repository();
    repo.branch("liar");
    repo.commit({ "src/words.js": words("(text) => 0", SWAP), "test/longest.test.js": longestTest }, "words: longest");
    const judgment = await judged(repo, "liar");
    expect(failing(judgment)).toContain("tests.regression");
    expect(reasonOf(judgment, "tests.regression")).toContain("the gate's canaries came back wrong on head");
    expect(reasonOf(judgment, "tests.regression")).toContain(`the intrinsics (Object.is, Array.prototype, JSON, ...) in every ${runner} test file's context`);
    expect(judgment.verdict.claims.find((c) => c.name === "tests.regression")?.details.map((d) => d.message))
      .toContainEqual(expect.stringContaining("test/words.test.js: ") && expect.stringContaining("replaced in the test file's context while it ran: Object.is"));
  }, 300_000);
});
