import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19, class 6 (weakening what frozen tests rely on) done at run time: the owner's frozen test
// compares through a helper of its own (`support/same.js`, frozen by default as a helper the frozen tests import), and the code
// under test, which the frozen test requires first, replaces the helper's exported function before the
// test file takes it, so that the broken `count` passes. The file on disk is untouched (diff.frozen
// holds), the canaries do not use the helper, and the names are built at run time (diff.safety reads
// nothing). node:test, mocha and jest (this project's own), real runners in the real sandbox: each
// attack was a CANDIDATE before the preload watched what the tree's CommonJS modules export, through
// Node's loader and jest's registry (src/measure/provenance/node-exports.ts).

const SAME = "\"use strict\";\nconst assert = require(\"node:assert/strict\");\n"
  + "exports.sameCount = (actual, expected) => assert.equal(actual, expected, `${actual} words, not ${expected}`);\n";
/** A runner's test file: its prelude (how it gets `test`), then the body. */
interface Runner { runner: string; prelude: string; test: string; command: string; attacks: string[] }
const file = (r: Runner, body: string): string => `"use strict";\n${r.prelude}${body}`;
// An unchanged module the owner's own test spies on and leaves spied: a replaced export on the base
// too, so the owner's (judged against the base run).
const TOKENS = "\"use strict\";\nexports.tokens = (text) => text.split(/\\s+/).filter(Boolean);\n";
const SPY = (r: Runner): string => file(r, "const assert = require(\"node:assert/strict\");\nconst lib = require(\"../src/tokens.js\");\n"
  + `${r.test}("tokens are spied", () => {\n  const real = lib.tokens;\n  lib.tokens = (text) => real(text);\n  assert.deepEqual(lib.tokens("a b"), ["a", "b"]);\n});\n`);
const WORDS = (r: Runner): string => file(r, "const { count } = require(\"../src/words.js\");\nconst { sameCount } = require(\"../support/same.js\");\n"
  + `${r.test}("counts words", () => {\n  sameCount(count("a b  c"), 3);\n});\n`);
const LONGEST_TEST = (r: Runner): string => file(r, "const assert = require(\"node:assert/strict\");\nconst { longest } = require(\"../src/words.js\");\n"
  + `${r.test}("finds the longest word", () => {\n  assert.equal(longest("a bbb cc"), "bbb");\n});\n`);

const HONEST = "exports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n";
const BROKEN = "exports.count = (text) => text.split(\" \").length;\n";
const LONGEST = "exports.longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
const HELPER_PATH = "const where = require(\"node:path\").join(__dirname, \"..\", \"sup\" + \"port\", \"same.js\");\n";
const NAME = "const name = \"same\" + \"Count\";\n";
const REPLACED = "during the head run support/same.js: exports.sameCount was replaced, which the base run did not do";

/** The attacks, each the head's src/words.js before its broken `count`, and what the reason names. */
const ATTACKS: Record<string, [string, string]> = {
  // The helper's export replaced for good.
  "replaced": [`${HELPER_PATH}${NAME}require(where)[name] = () => {};\n`, REPLACED],
  // Replaced while the frozen test file loads (it takes the function then), put back before any test runs.
  "replaced and put back": [`${HELPER_PATH}${NAME}const helper = require(where);\nconst real = helper[name];\nhelper[name] = () => {};\nsetImmediate(() => { helper[name] = real; });\n`, REPLACED],
  // The helper never loaded: require's cache holds a module object of the code's own under its path.
  "planted in require's cache": [`${HELPER_PATH}${NAME}require["ca" + "che"][where] = { id: where, filename: where, loaded: true, exports: { [name]: () => {} }, children: [], paths: [] };\n`,
    "support/same.js: the module require() returns (not loaded from its file) was replaced, which the base run did not do"],
};

const NODE_LOADER = Object.keys(ATTACKS);
const RUNNERS: Runner[] = [
  { runner: "node:test", prelude: "const { test } = require(\"node:test\");\n", test: "test", command: 'node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT" test/', attacks: NODE_LOADER },
  { runner: "mocha", prelude: "", test: "it", command: 'node "$RANEX_REPORTERS/mocha-run.cjs"', attacks: NODE_LOADER },
  // jest's require.cache is a read-only view of its registry: nothing to plant there.
  { runner: "jest", prelude: "", test: "test", command: 'node "$RANEX_REPORTERS/jest-run.cjs"', attacks: ["replaced", "replaced and put back"] },
];

const reasonOf = (judgment: Judgment, claim: string): string => judgment.verdict.claims.find((c) => c.name === claim)?.reason ?? "";

describe.each(RUNNERS)("$runner: a frozen test's helper replaced by code under test", (r) => {
  const repository = (): TestRepo => {
    const repo = wordsRepository({ command: r.command, module: false, words: `"use strict";\n${HONEST}`, wordsTest: WORDS(r) });
    repo.commit({ "support/same.js": SAME, "src/tokens.js": TOKENS, "test/tokens.test.js": SPY(r) }, "words: a helper, and tokens");
    return repo;
  };

  it("an honest feature, beside the owner's own spy on a module it left alone, is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": `"use strict";\n${HONEST}${LONGEST}`, "test/longest.test.js": LONGEST_TEST(r) }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
    const details = judgment.verdict.claims.flatMap((c) => c.details.map((d) => d.message));
    expect(details).toContain("during the head run src/tokens.js: exports.tokens (as on the base)");
  }, 300_000);

  it.each(r.attacks)("the helper's export %s: not a CANDIDATE", async (attack) => {
    const repo = repository();
    repo.branch("attack");
    const [code, named] = ATTACKS[attack]!;
    repo.commit({ "src/words.js": `"use strict";\n${code}${BROKEN}${LONGEST}`, "test/longest.test.js": LONGEST_TEST(r) }, "words: longest");
    const judgment = await judged(repo, "attack");
    expect(failing(judgment)).toContain("tests.regression");
    expect(failing(judgment)).not.toContain("diff.safety");
    expect(reasonOf(judgment, "tests.regression")).toContain(named);
  }, 300_000);
});
