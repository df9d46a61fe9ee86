import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19, the assertion library neutered from code under test, jest's and vitest's form: a module
// under test redefines the built-in `toEqual` through `expect.extend`, saying pass for its own wrong
// answer only (so the canaries, which compare other values, stay honest), the matcher's and extend's
// names built at run time, so the harness scan reads neither. CANDIDATE with `count` broken on both
// runners before the in-file setup watched who writes the matchers (src/runners/canary-in-file.ts).

const FROZEN = "test(\"counts words\", () => {\n  expect(count(\"a b  c\")).toEqual(3);\n});\n";
const OVERRIDE = (expectOf: string): string => `const e = ${expectOf};\n`
  + "e[\"ext\" + \"end\"]({ [\"to\" + \"Equal\"](received, expected) { return { pass: received === 0 || this.equals(received, expected), message: () => \"\" }; } });\n";
const LONGEST = "const longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
// The PR's own test adds a matcher of its own: adding one is what expect.extend is for.
const OWN_MATCHER = "expect.extend({ toBeWord(received) { return { pass: /^\\w+$/.test(received), message: () => \"not a word\" }; } });\n"
  + "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n  expect(longest(\"a bbb cc\")).toBeWord();\n});\n";
const reasonOf = (judgment: Judgment, claim: string): string => judgment.verdict.claims.find((c) => c.name === claim)?.reason ?? "";

const runners = [
  {
    runner: "jest",
    repository: (): TestRepo => wordsRepository({
      command: 'node "$RANEX_REPORTERS/jest-run.cjs"', module: false,
      words: "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n",
      wordsTest: "\"use strict\";\nconst { count } = require(\"../src/words.js\");\n" + FROZEN,
    }),
    words: (count: string, prefix: string) => `"use strict";\n${prefix}exports.count = ${count};\n${LONGEST}exports.longest = longest;\n`,
    expectOf: "globalThis[\"exp\" + \"ect\"]",
    longestTest: "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\n" + OWN_MATCHER,
  },
  {
    runner: "vitest",
    repository: (): TestRepo => wordsRepository({
      command: 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT"', module: true,
      words: "export const count = (text) => text.split(/\\s+/).filter(Boolean).length;\n",
      wordsTest: "import { expect, test } from \"vitest\";\nimport { count } from \"../src/words.js\";\n" + FROZEN,
    }),
    words: (count: string, prefix: string) => `${prefix}export const count = ${count};\nexport ${LONGEST}`,
    expectOf: "globalThis[Symbol.for(\"expect-\" + \"global\")]",
    longestTest: "import { expect, test } from \"vitest\";\nimport { longest } from \"../src/words.js\";\n" + OWN_MATCHER,
  },
];

describe.each(runners)("$runner: a built-in matcher redefined by code under test", ({ runner, repository, words, expectOf, longestTest }) => {
  it("an honest change whose own test adds a matcher is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": words("(text) => text.trim().split(/\\s+/).filter((w) => w.length > 0).length", ""), "test/longest.test.js": longestTest }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it("toEqual redefined to agree with a wrong count passes no frozen test", async () => {
    const repo = repository();
    repo.branch("override");
    repo.commit({ "src/words.js": words("(text) => 0", OVERRIDE(expectOf)), "test/longest.test.js": longestTest }, "words: longest");
    const judgment = await judged(repo, "override");
    expect(failing(judgment)).toContain("tests.regression");
    expect(failing(judgment)).not.toContain("diff.safety");
    expect(reasonOf(judgment, "tests.regression")).toContain(`test/words.test.js: ${runner}'s matchers.toEqual was replaced by src/words.js`);
  }, 300_000);
});
