import { describe, expect, it } from "vitest";
import { HONEST_COUNT, WORDS_RUNNERS, reasonOf, unpassed } from "../helpers/js-words.js";
import { failing, judged } from "../helpers/words-repo.js";

// Issue 19, a test's outcome rewritten in the test's own process: jest and vitest decide it from
// objects code under test reaches (jest-circus's `test.errors`, vitest's `task.result`). A module under
// test registers, at import, an afterEach hook that empties the failing frozen test's errors (jest) or
// sets its state to "pass" (vitest), names built at run time: CANDIDATE with `count` broken on both
// runners before the in-file setup told the record's pipe which bodies threw as they threw
// (src/runners/test-bodies.ts, src/measure/provenance/judge-bodies.ts).

const REWRITE = {
  jest: "const g = globalThis;\nconst key = Object.getOwnPropertySymbols(g).find((s) => s.description === \"JEST_STATE_SYMBOL\");\n"
    + "g[\"after\" + \"Each\"](() => { const t = g[key].currentlyRunningTest; if (t && t.name === \"counts words\") t.errors.length = 0; });\n",
  vitest: "const v = await import(\"vit\" + \"est\");\n"
    + "v[\"after\" + \"Each\"]((ctx) => { if (ctx.task.name === \"counts words\" && ctx.task.result) { ctx.task.result.state = \"pass\"; ctx.task.result.errors = []; } });\n",
};
// The owner's honest uses of a body that throws: a retried flaky test, a test meant to fail, and two
// tests of one name of which one fails (one id in the report, a failed case and a passed one).
const SAME_NAME = "test(\"shares a name\", () => {\n  expect(1).toBe(2);\n});\ntest(\"shares a name\", () => {});\n";
const FLAKY = {
  jest: "jest.retryTimes(2);\nlet tries = 0;\ntest(\"passes on its second try\", () => {\n  tries += 1;\n  expect(tries).toBe(2);\n});\n"
    + "test.failing(\"is meant to fail\", () => {\n  expect(1).toBe(2);\n});\n",
  vitest: "let tries = 0;\ntest(\"passes on its second try\", { retry: 2 }, () => {\n  tries += 1;\n  expect(tries).toBe(2);\n});\n"
    + "test.fails(\"is meant to fail\", () => {\n  expect(1).toBe(2);\n});\n",
};

describe.each(WORDS_RUNNERS)("$runner: a failing test's outcome rewritten by code under test", (words) => {
  const repository = () => words.repository({ more: (r) => ({ "test/flaky.test.js": r.testFile("", FLAKY[r.runner] + SAME_NAME) }) });

  it("an honest change, beside a retried flaky test, one meant to fail and two of one name, is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": words.words(HONEST_COUNT), "test/longest.test.js": words.longestTest() }, "words: longest");
    expect(unpassed(await judged(repo, "honest"))).toEqual([]);
  }, 300_000);

  it("a hook that makes the failing frozen test pass is seen", async () => {
    const repo = repository();
    repo.branch("rewrite");
    repo.commit({ "src/words.js": words.words("(text) => 0", REWRITE[words.runner]), "test/longest.test.js": words.longestTest() }, "words: longest");
    const judgment = await judged(repo, "rewrite");
    expect(failing(judgment)).toContain("tests.regression");
    expect(failing(judgment)).not.toContain("diff.safety");
    expect(reasonOf(judgment, "tests.regression")).toContain("the head report says test/words.test.js::counts words passed, but its body threw");
  }, 300_000);
});
