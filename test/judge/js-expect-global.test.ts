import { describe, expect, it } from "vitest";
import { HONEST_COUNT, WORDS_RUNNERS, reasonOf, unpassed } from "../helpers/js-words.js";
import { failing, judged } from "../helpers/words-repo.js";

// Issue 19, the assertion library neutered from code under test: a frozen test file's free `expect`
// is the runner's global (jest's always, vitest's with --globals). A module under test wraps it at
// import, answering for its own wrong value only (so the canaries, which compare other values, stay
// honest), the name built at run time: CANDIDATE with `count` broken on both runners before the
// in-file setup watched `expect` as it watches the registration globals (src/runners/canary-in-file.ts).

const WRAP = "const g = globalThis;\nconst k = \"exp\" + \"ect\";\nconst real = g[k];\n"
  + "g[k] = Object.assign((v) => (v === 0 ? { [\"to\" + \"Equal\"]() {} } : real(v)), real);\n";

describe.each(WORDS_RUNNERS)("$runner: the global expect wrapped by code under test", (words) => {
  // The frozen test file imports nothing of the runner: its expect is the global one.
  const repository = () => words.repository({ globals: true });

  it("an honest change is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({ "src/words.js": words.words(HONEST_COUNT), "test/longest.test.js": words.longestTest() }, "words: longest");
    expect(unpassed(await judged(repo, "honest"))).toEqual([]);
  }, 300_000);

  it("expect wrapped to wave through a wrong count passes no frozen test", async () => {
    const repo = repository();
    repo.branch("wrap");
    repo.commit({ "src/words.js": words.words("(text) => 0", WRAP), "test/longest.test.js": words.longestTest() }, "words: longest");
    const judgment = await judged(repo, "wrap");
    expect(failing(judgment)).toContain("tests.regression");
    expect(failing(judgment)).not.toContain("diff.safety");
    expect(reasonOf(judgment, "tests.regression")).toContain("test/words.test.js: globalThis.expect was replaced by src/words.js");
  }, 300_000);
});
