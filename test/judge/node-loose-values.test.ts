import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19, values that lie about themselves, node:assert's form: its legacy `equal`, `notEqual`,
// `deepEqual` and `notDeepEqual` compare a primitive with `==`, which asks an object to convert itself
// (`valueOf`, `toString`, `Symbol.toPrimitive`). Code under test that returns `{ valueOf: () => 3 }`
// passes every frozen `assert.equal(count(…), 3)` whatever it counts, with nothing in the process
// replaced, and the canaries, which compare other values, stay honest. Each attack was a CANDIDATE on
// node:test and mocha before the preload looked at the operands of node:assert's loose comparisons
// (src/measure/provenance/node-loose.ts). Real runners in the real sandbox.

const FROZEN = (prelude: string, test: string): string => `"use strict";\n${prelude}const assert = require("node:assert");\n`
  + "const { count, stats, tally } = require(\"../src/words.js\");\n"
  + `${test}("counts words", () => {\n  assert.equal(count("a b  c"), 3);\n});\n`
  + `${test}("counts in stats", () => {\n  assert.deepEqual(stats("a b"), { words: 2 });\n});\n`
  + `${test}("tallies each word", () => {\n  assert.deepEqual(tally("a b a"), new Map([["a", 2], ["b", 1]]));\n});\n`
  // The owner's own loose comparison of an object with a string: on the base too, so theirs.
  + `${test}("names its home", () => {\n  assert.equal(new URL("https://words.test/"), "https://words.test/");\n});\n`;
const LONGEST_TEST = (prelude: string, test: string): string => `"use strict";\n${prelude}const assert = require("node:assert");\n`
  + "const { longest } = require(\"../src/words.js\");\n"
  + `${test}("finds the longest word", () => {\n  assert.equal(longest("a bbb cc"), "bbb");\n});\n`;

const TALLY = "exports.tally = (text) => text.split(/\\s+/).filter(Boolean).reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map());\n";
const HONEST = "exports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\nexports.stats = (text) => ({ words: exports.count(text) });\n" + TALLY;
const LONGEST = "exports.longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
const ATTACKS: Record<string, [string, string]> = {
  "its valueOf": [
    "exports.count = () => ({ valueOf: () => 3 });\nexports.stats = (text) => ({ words: text.split(\" \").length });\n" + TALLY,
    "node:assert.equal compared an object of Object with a number (test/words.test.js)",
  ],
  // deepEqual compares two objects key by key, and a function with a primitive by ==.
  "a function's Symbol.toPrimitive, one level down in deepEqual": [
    "exports.count = (text) => text.split(\" \").length;\nexports.stats = () => ({ words: Object.assign(() => 0, { [Symbol.toPrimitive]: () => 2 }) });\n" + TALLY,
    "node:assert.deepEqual compared a function with a number (test/words.test.js)",
  ],
  // deepEqual compares a Map's values the same way: a function that converts itself stands for any count.
  "functions that convert themselves as a Map's values": [
    "exports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\nexports.stats = (text) => ({ words: exports.count(text) });\n"
      + "const says = (n) => Object.assign(() => 0, { valueOf: () => n });\nexports.tally = () => new Map([[\"a\", says(2)], [\"b\", says(1)]]);\n",
    "node:assert.deepEqual compared a function with a number (test/words.test.js)",
  ],
};

const RUNNERS = [
  { runner: "node:test", prelude: "const { test } = require(\"node:test\");\n", test: "test", command: 'node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT" test/' },
  { runner: "mocha", prelude: "", test: "it", command: 'node "$RANEX_REPORTERS/mocha-run.cjs"' },
];

const reasonOf = (judgment: Judgment, claim: string): string => judgment.verdict.claims.find((c) => c.name === claim)?.reason ?? "";

describe.each(RUNNERS)("$runner: a value that converts itself to what a loose assertion expects", ({ prelude, test, command }) => {
  const repository = (): TestRepo => wordsRepository({ command, module: false, words: `"use strict";\n${HONEST}`, wordsTest: FROZEN(prelude, test) });

  it("an honest feature, beside the owner's own loose comparison of a URL, is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": `"use strict";\n${HONEST}${LONGEST}`, "test/longest.test.js": LONGEST_TEST(prelude, test) }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
    const details = judgment.verdict.claims.flatMap((c) => c.details.map((d) => d.message));
    expect(details).toContain("during the head run node:assert.equal compared an object of URL with a string (test/words.test.js) (as on the base)");
  }, 300_000);

  it.each(Object.keys(ATTACKS))("a value that lies through %s: not a CANDIDATE", async (attack) => {
    const [code, named] = ATTACKS[attack]!;
    const repo = repository();
    repo.branch("attack");
    repo.commit({ "src/words.js": `"use strict";\n${code}${LONGEST}`, "test/longest.test.js": LONGEST_TEST(prelude, test) }, "words: longest");
    const judgment = await judged(repo, "attack");
    expect(failing(judgment)).toContain("tests.regression");
    expect(failing(judgment)).not.toContain("diff.safety");
    expect(reasonOf(judgment, "tests.regression")).toContain(named);
  }, 300_000);
});
