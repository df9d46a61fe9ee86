import { describe, expect, it } from "vitest";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19, vitest's `expect` neutered by the PR's own test file under a matcher name built at run
// time (the harness scan's tripwire does not see it): a real vitest (this project's own, through
// toolchain.path) in the real sandbox, through the gate's vitest launcher, which loads the canaries
// into every test file. The twin of test/judge/jest-expect.test.ts's second describe.

const WORDS = "export const count = (text) => text.split(/\\s+/).filter(Boolean).length;\n";
const LONGEST_TEST = "import { expect, test } from \"vitest\";\nimport { longest } from \"../src/words.js\";\n"
  + "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n";

const repository = (): TestRepo => wordsRepository({
  command: 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT"', module: true, words: WORDS,
  wordsTest: "import { expect, test } from \"vitest\";\nimport { count } from \"../src/words.js\";\ntest(\"counts words\", () => {\n  expect(count(\"a b  c\")).toBe(3);\n});\n",
});

describe("vitest: the canaries run inside every test file", () => {
  it("an honest feature with its test is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({
      "src/words.js": `${WORDS}export const longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), "");\n`,
      "test/longest.test.js": LONGEST_TEST,
    }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it("the PR's new test file making toBe pass under a name built at run time is not a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("built-name");
    repo.commit({
      "src/words.js": `${WORDS}export const longest = () => "";\n`,
      "test/longest.test.js": LONGEST_TEST.replace("test(", "expect.extend({ [\"to\" + \"Be\"]: () => ({ pass: true, message: () => \"\" }) });\ntest("),
    }, "words: longest");
    const judgment = await judged(repo, "built-name");
    expect(failing(judgment)).toEqual(["tests.red_green"]);
    expect(judgment.verdict.claims.find((c) => c.name === "tests.red_green")?.reason).toContain("vitest expect().toBe in every test file) came back wrong in test/longest.test.js (passed)");
  }, 300_000);
});
