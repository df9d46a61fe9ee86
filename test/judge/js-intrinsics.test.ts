import { describe, expect, it } from "vitest";
import { HONEST_COUNT, WORDS_RUNNERS, reasonOf, unpassed } from "../helpers/js-words.js";
import { failing, judged } from "../helpers/words-repo.js";

// Issue 19, the intrinsics where a jest or vitest test file runs: `expect`'s equality reads `Object.is`
// of the test file's context (jest: a `vm` context of its own, which the preload never compares).
// Code under test that makes `Object.is` say true for its own wrong answer only, and puts it back
// before the process ends, passed every frozen `toEqual` with the canaries honest: CANDIDATE with
// `count` broken on both runners before the in-file setup compared the intrinsics
// (src/runners/intrinsics-in-file.ts). A real jest and vitest in the real sandbox.

const SWAP = "const realIs = Object.is;\nObject.is = (a, b) => realIs(a, b) || (a === 0 && typeof b === \"number\");\n"
  + "process.once(\"beforeExit\", () => { Object.is = realIs; });\n";
// The owner's frozen test that leaves a spy on Math.max in place: the base's run replaces it too.
const spyTest = (spyOn: string): string => `test("spies on Math.max", () => {\n  ${spyOn}(Math, "max");\n  expect(Math.max(1, 2)).toBe(2);\n});\n`;

describe.each(WORDS_RUNNERS)("$runner: the intrinsics of the test file's context", (words) => {
  const repository = () => words.repository({ more: (r) => ({ "test/spy.test.js": r.testFile("", spyTest(r.spyOn)) }) });

  it("an honest change, beside a frozen spy the base leaves in place too, is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": words.words(HONEST_COUNT), "test/longest.test.js": words.longestTest() }, "words: longest");
    expect(unpassed(await judged(repo, "honest"))).toEqual([]);
  }, 300_000);

  it("Object.is made to agree with a wrong count, and put back before the process ends, passes no frozen toEqual", async () => {
    const repo = repository();
    repo.branch("liar");
    repo.commit({ "src/words.js": words.words("(text) => 0", SWAP), "test/longest.test.js": words.longestTest() }, "words: longest");
    const judgment = await judged(repo, "liar");
    expect(failing(judgment)).toContain("tests.regression");
    expect(reasonOf(judgment, "tests.regression")).toContain("the gate's canaries came back wrong on head");
    expect(reasonOf(judgment, "tests.regression")).toContain(`the intrinsics (Object.is, Array.prototype, JSON, ...) in every ${words.runner} test file's context`);
    expect(judgment.verdict.claims.find((c) => c.name === "tests.regression")?.details.map((d) => d.message))
      .toContainEqual(expect.stringMatching(/^test\/words\.test\.js: .*replaced in the test file's context while it ran: Object\.is/));
  }, 300_000);
});
