import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19: mocha runs every test file in one process, whose intrinsics the preload compared at exit
// only. A frozen test computes its expected value with the language's sort; code under test makes
// `Array.prototype.sort` leave the list as it is (so an unsorted copy agrees) and puts it back from
// `beforeExit`, before that check: a CANDIDATE with `sorted` undone. The gate's mocha guard now has the
// preload compare as each test ends (src/runners/mocha-guard.ts). A real mocha in the real sandbox.

const FROZEN = "\"use strict\";\nconst assert = require(\"node:assert/strict\");\nconst { sorted } = require(\"../src/words.js\");\n"
  + "it(\"sorts a copy\", () => {\n  const xs = [3, 1, 2];\n  assert.deepEqual(sorted(xs), [...xs].sort());\n});\n";
const LONGEST = "exports.longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
const LONGEST_TEST = "\"use strict\";\nconst assert = require(\"node:assert/strict\");\nconst { longest } = require(\"../src/words.js\");\n"
  + "it(\"finds the longest word\", () => {\n  assert.equal(longest(\"a bbb cc\"), \"bbb\");\n});\n";
const SWAP = "const realSort = Array.prototype.sort;\nArray.prototype.sort = function sort() { return this; };\n"
  + "process.once(\"beforeExit\", () => { Array.prototype.sort = realSort; });\n";

const repository = (): TestRepo => wordsRepository({
  command: 'node "$RANEX_REPORTERS/mocha-run.cjs"', module: false,
  words: "\"use strict\";\nexports.sorted = (xs) => [...xs].sort();\n", wordsTest: FROZEN,
});
const reasonOf = (judgment: Judgment, claim: string): string => judgment.verdict.claims.find((c) => c.name === claim)?.reason ?? "";

describe("mocha: what the frozen tests compute their expected values with", () => {
  it("an honest feature is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": `"use strict";\nexports.sorted = (xs) => [...xs].sort();\n${LONGEST}`, "test/longest.test.js": LONGEST_TEST }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it("Array.prototype.sort swapped, and put back from beforeExit, is seen as the test ends", async () => {
    const repo = repository();
    repo.branch("swap");
    repo.commit({ "src/words.js": `"use strict";\n${SWAP}exports.sorted = (xs) => [...xs];\n${LONGEST}`, "test/longest.test.js": LONGEST_TEST }, "words: longest");
    const judgment = await judged(repo, "swap");
    expect(failing(judgment)).toContain("tests.regression");
    expect(reasonOf(judgment, "tests.regression")).toContain("during the head run Array.prototype.sort was replaced, which the base run did not do");
  }, 300_000);
});
