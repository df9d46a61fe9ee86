import { describe, expect, it } from "vitest";
import type { Judgment } from "../../src/judge/judge.js";
import type { TestRepo } from "../helpers/git-repo.js";
import { failing, judged, wordsRepository } from "../helpers/words-repo.js";

// Issue 19, a test's outcome rewritten in the test's own process: jest and vitest decide it from
// objects code under test reaches (jest-circus's `test.errors`, vitest's `task.result`). A module under
// test registers, at import, an afterEach hook that empties the failing frozen test's errors (jest) or
// sets its state to "pass" (vitest), names built at run time: CANDIDATE with `count` broken on both
// runners before the in-file setup told the record's pipe which bodies threw as they threw
// (src/runners/test-bodies.ts, src/measure/provenance/judge-bodies.ts).

const FROZEN = "test(\"counts words\", () => {\n  expect(count(\"a b  c\")).toEqual(3);\n});\n";
const LONGEST = "const longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n";
const LONGEST_TEST = "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n";
const reasonOf = (judgment: Judgment, claim: string): string => judgment.verdict.claims.find((c) => c.name === claim)?.reason ?? "";

const runners = [
  {
    runner: "jest",
    repository: (): TestRepo => {
      const repo = wordsRepository({
        command: 'node "$RANEX_REPORTERS/jest-run.cjs"', module: false,
        words: "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n",
        wordsTest: "\"use strict\";\nconst { count } = require(\"../src/words.js\");\n" + FROZEN,
      });
      // The owner's honest uses of a body that throws: a retried flaky test, and a test meant to fail.
      repo.commit({
        "test/flaky.test.js": "\"use strict\";\njest.retryTimes(2);\nlet tries = 0;\ntest(\"passes on its second try\", () => {\n  tries += 1;\n  expect(tries).toBe(2);\n});\n"
          + "test.failing(\"is meant to fail\", () => {\n  expect(1).toBe(2);\n});\n",
      }, "a flaky test and a failing one");
      return repo;
    },
    words: (count: string, prefix: string) => `"use strict";\n${prefix}exports.count = ${count};\n${LONGEST}exports.longest = longest;\n`,
    rewrite: "const g = globalThis;\nconst key = Object.getOwnPropertySymbols(g).find((s) => s.description === \"JEST_STATE_SYMBOL\");\n"
      + "g[\"after\" + \"Each\"](() => { const t = g[key].currentlyRunningTest; if (t && t.name === \"counts words\") t.errors.length = 0; });\n",
    longestTest: "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\n" + LONGEST_TEST,
  },
  {
    runner: "vitest",
    repository: (): TestRepo => {
      const repo = wordsRepository({
        command: 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT"', module: true,
        words: "export const count = (text) => text.split(/\\s+/).filter(Boolean).length;\n",
        wordsTest: "import { expect, test } from \"vitest\";\nimport { count } from \"../src/words.js\";\n" + FROZEN,
      });
      repo.commit({
        "test/flaky.test.js": "import { expect, test } from \"vitest\";\nlet tries = 0;\ntest(\"passes on its second try\", { retry: 2 }, () => {\n  tries += 1;\n  expect(tries).toBe(2);\n});\n"
          + "test.fails(\"is meant to fail\", () => {\n  expect(1).toBe(2);\n});\n",
      }, "a flaky test and a failing one");
      return repo;
    },
    words: (count: string, prefix: string) => `${prefix}export const count = ${count};\nexport ${LONGEST}`,
    rewrite: "const v = await import(\"vit\" + \"est\");\n"
      + "v[\"after\" + \"Each\"]((ctx) => { if (ctx.task.name === \"counts words\" && ctx.task.result) { ctx.task.result.state = \"pass\"; ctx.task.result.errors = []; } });\n",
    longestTest: "import { expect, test } from \"vitest\";\nimport { longest } from \"../src/words.js\";\n" + LONGEST_TEST,
  },
];

describe.each(runners)("$runner: a failing test's outcome rewritten by code under test", ({ repository, words, rewrite, longestTest }) => {
  it("an honest change, beside a retried flaky test and one meant to fail, is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": words("(text) => text.trim().split(/\\s+/).filter((w) => w.length > 0).length", ""), "test/longest.test.js": longestTest }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(judgment.verdict.claims.filter((c) => c.status !== "pass" && c.name !== "approval.independent").map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
  }, 300_000);

  it("a hook that makes the failing frozen test pass is seen", async () => {
    const repo = repository();
    repo.branch("rewrite");
    repo.commit({ "src/words.js": words("(text) => 0", rewrite), "test/longest.test.js": longestTest }, "words: longest");
    const judgment = await judged(repo, "rewrite");
    expect(failing(judgment)).toContain("tests.regression");
    expect(failing(judgment)).not.toContain("diff.safety");
    expect(reasonOf(judgment, "tests.regression")).toContain("the head report says test/words.test.js::counts words passed, but its body threw");
  }, 300_000);
});
