import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19, values that lie about themselves, jest's and vitest's form: their equality asks an
// object with an `asymmetricMatch` function whether it matches before comparing anything, so code
// under test returning one passes every `toEqual` of a frozen test. Spelled so that the harness
// scan's tripwire (the word `asymmetricMatch` in code) does not see it: the name built at run time.
// Each attack got a CANDIDATE with `count` broken before the in-file setup walked the received values
// (src/runners/lying-received.ts); a real jest and vitest (this project's own) in the real sandbox.

const LIAR = "{ [\"asymmetric\" + \"Match\"]: () => true }";
// Every head adds a feature with its own test (tests.red_green's targets): the honest one beside an
// honest change of count, the attacks beside a count that lies.
const LONGEST = "const longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
const CJS_LONGEST = `${LONGEST}exports.longest = longest;\n`;
const reasonOf = (judgment: Judgment, claim: string): string => judgment.verdict.claims.find((c) => c.name === claim)?.reason ?? "";
const detailsOf = (judgment: Judgment, claim: string): string[] => judgment.verdict.claims.find((c) => c.name === claim)?.details.map((d) => d.message) ?? [];

// The owner's frozen tests: toEqual of a value and of an object holding it, a mock's calls, and
// expect.any on the expected side (the owner's daily use, never looked at).
const frozenTests = (mockFn: string): string => "test(\"counts words\", () => {\n  expect(count(\"a b  c\")).toEqual(3);\n});\n"
  + "test(\"counts in stats\", () => {\n  expect(stats(\"a b\")).toEqual({ words: 2 });\n  expect({ at: Date.now() }).toEqual({ at: expect.any(Number) });\n});\n"
  + `test("reports each count", () => {\n  const seen = ${mockFn}();\n  seen(count("a b"));\n  expect(seen).toHaveBeenCalledWith(2);\n});\n`;

const runners = [
  {
    runner: "jest",
    repository: (): TestRepo => wordsRepository({
      command: 'node "$RANEX_REPORTERS/jest-run.cjs"', module: false,
      words: "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\nexports.stats = (text) => ({ words: exports.count(text) });\n",
      wordsTest: "\"use strict\";\nconst { count, stats } = require(\"../src/words.js\");\n"
        + frozenTests("jest.fn"),
    }),
    anything: "() => globalThis[\"exp\" + \"ect\"].anything()",
    broken: (how: string) => `"use strict";\nexports.count = ${how};\nexports.stats = (text) => ({ words: exports.count(text) });\n${CJS_LONGEST}`,
    honest: `"use strict";\nexports.count = (text) => text.trim().split(/\\s+/).filter((w) => w.length > 0).length;\nexports.stats = (text) => ({ words: exports.count(text) });\n${CJS_LONGEST}`,
    longestTest: "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\ntest(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n",
  },
  {
    runner: "vitest",
    repository: (): TestRepo => wordsRepository({
      command: 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT"', module: true,
      words: "export const count = (text) => text.split(/\\s+/).filter(Boolean).length;\nexport const stats = (text) => ({ words: count(text) });\n",
      wordsTest: "import { expect, test, vi } from \"vitest\";\nimport { count, stats } from \"../src/words.js\";\n"
        + frozenTests("vi.fn"),
    }),
    anything: "() => globalThis[Symbol.for(\"expect-\" + \"global\")].anything()",
    broken: (how: string) => `export const count = ${how};\nexport const stats = (text) => ({ words: count(text) });\nexport ${LONGEST}`,
    honest: `export const count = (text) => text.trim().split(/\\s+/).filter((w) => w.length > 0).length;\nexport const stats = (text) => ({ words: count(text) });\nexport ${LONGEST}`,
    longestTest: "import { expect, test } from \"vitest\";\nimport { longest } from \"../src/words.js\";\ntest(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n",
  },
];

describe.each(runners)("$runner: a value that answers the asymmetric matcher protocol", ({ runner, repository, anything, broken, honest, longestTest }) => {
  it("an honest change, whose frozen tests use expect.any on the expected side, is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": honest, "test/longest.test.js": longestTest }, "words: longest, and count trims first");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it.each([
    ["returned by code under test", `() => (${LIAR})`],
    ["the runner's own expect.anything(), reached through the global", anything],
  ])("a count %s passes no frozen toEqual", async (_how, count) => {
    const repo = repository();
    repo.branch("liar");
    repo.commit({ "src/words.js": broken(count), "test/longest.test.js": longestTest }, "words: longest");
    const judgment = await judged(repo, "liar");
    expect(failing(judgment)).toContain("tests.regression");
    expect(reasonOf(judgment, "tests.regression")).toContain("the gate's canaries came back wrong on head");
    expect(reasonOf(judgment, "tests.regression")).toContain(`${runner}'s test registration in every frozen test file, and the values every test file compares`);
    // Every frozen test's equality met it: the value itself, inside stats' object, among the mock's calls.
    expect(detailsOf(judgment, "tests.regression")).toContainEqual(expect.stringContaining("test/words.test.js: a value with an asymmetricMatch function, which can equal anything, reached "
      + "toEqual; toEqual at words; toHaveBeenCalledWith at the mock's calls.0.0"));
  }, 300_000);
});
