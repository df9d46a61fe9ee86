import { describe, expect, it } from "vitest";
import { HONEST_COUNT, WORDS_RUNNERS, reasonOf, unpassed } from "../helpers/js-words.js";
import { failing, judged } from "../helpers/words-repo.js";

// Issue 19, the assertion library neutered from code under test, jest's and vitest's form: a module
// under test redefines the built-in `toEqual` through `expect.extend`, saying pass for its own wrong
// answer only (so the canaries, which compare other values, stay honest), the matcher's and extend's
// names built at run time, so the harness scan reads neither. CANDIDATE with `count` broken on both
// runners before the in-file setup watched who writes the matchers (src/runners/canary-in-file.ts).

const EXPECT_OF = { jest: "globalThis[\"exp\" + \"ect\"]", vitest: "globalThis[Symbol.for(\"expect-\" + \"global\")]" };
const override = (expectOf: string): string => `const e = ${expectOf};\n`
  + "e[\"ext\" + \"end\"]({ [\"to\" + \"Equal\"](received, expected) { return { pass: received === 0 || this.equals(received, expected), message: () => \"\" }; } });\n";
// The PR's own test adds a matcher of its own: adding one is what expect.extend is for.
const OWN_MATCHER = "expect.extend({ toBeWord(received) { return { pass: /^\\w+$/.test(received), message: () => \"not a word\" }; } });\n"
  + "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n  expect(longest(\"a bbb cc\")).toBeWord();\n});\n";

describe.each(WORDS_RUNNERS)("$runner: a built-in matcher redefined by code under test", (words) => {
  it("an honest change whose own test adds a matcher is a CANDIDATE", async () => {
    const repo = words.repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": words.words(HONEST_COUNT), "test/longest.test.js": words.longestTest(OWN_MATCHER) }, "words: longest");
    expect(unpassed(await judged(repo, "honest"))).toEqual([]);
  }, 300_000);

  it("toEqual redefined to agree with a wrong count passes no frozen test", async () => {
    const repo = words.repository();
    repo.branch("override");
    repo.commit({ "src/words.js": words.words("(text) => 0", override(EXPECT_OF[words.runner])), "test/longest.test.js": words.longestTest(OWN_MATCHER) }, "words: longest");
    const judgment = await judged(repo, "override");
    expect(failing(judgment)).toContain("tests.regression");
    expect(failing(judgment)).not.toContain("diff.safety");
    expect(reasonOf(judgment, "tests.regression")).toContain(`test/words.test.js: ${words.runner}'s matchers.toEqual was replaced by src/words.js`);
  }, 300_000);
});
