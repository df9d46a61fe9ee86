import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19, the assertion library neutered from code under test: a frozen test file's free `expect`
// is the runner's global (jest's always, vitest's with --globals). A module under test wraps it at
// import, answering for its own wrong value only (so the canaries, which compare other values, stay
// honest), the name built at run time: CANDIDATE with `count` broken on both runners before the
// in-file setup watched `expect` as it watches the registration globals (src/runners/canary-in-file.ts).

const FROZEN = "test(\"counts words\", () => {\n  expect(count(\"a b  c\")).toEqual(3);\n});\n";
const WRAP = "const g = globalThis;\nconst k = \"exp\" + \"ect\";\nconst real = g[k];\n"
  + "g[k] = Object.assign((v) => (v === 0 ? { [\"to\" + \"Equal\"]() {} } : real(v)), real);\n";
const LONGEST = "const longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
const LONGEST_TEST = "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n";
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
    longestTest: "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\n" + LONGEST_TEST,
  },
  {
    runner: "vitest",
    repository: (): TestRepo => wordsRepository({
      command: 'node "$RANEX_REPORTERS/vitest-run.cjs" run --globals --reporter=junit --outputFile="$RANEX_JUNIT"', module: true,
      words: "export const count = (text) => text.split(/\\s+/).filter(Boolean).length;\n",
      wordsTest: "import { count } from \"../src/words.js\";\n" + FROZEN,
    }),
    words: (count: string, prefix: string) => `${prefix}export const count = ${count};\nexport ${LONGEST}`,
    longestTest: "import { longest } from \"../src/words.js\";\n" + LONGEST_TEST,
  },
];

describe.each(runners)("$runner: the global expect wrapped by code under test", ({ repository, words, longestTest }) => {
  it("an honest change is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": words("(text) => text.trim().split(/\\s+/).filter((w) => w.length > 0).length", ""), "test/longest.test.js": longestTest }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it("expect wrapped to wave through a wrong count passes no frozen test", async () => {
    const repo = repository();
    repo.branch("wrap");
    repo.commit({ "src/words.js": words("(text) => 0", WRAP), "test/longest.test.js": longestTest }, "words: longest");
    const judgment = await judged(repo, "wrap");
    expect(failing(judgment)).toContain("tests.regression");
    expect(failing(judgment)).not.toContain("diff.safety");
    expect(reasonOf(judgment, "tests.regression")).toContain("test/words.test.js: globalThis.expect was replaced by src/words.js");
  }, 300_000);
});
