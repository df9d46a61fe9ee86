import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { tempDir } from "../helpers/git-repo.js";
import { toolchainPolicy, wordsRepository } from "../helpers/words-repo.js";

// tests.stable's repeats of a task target through the gate's jest launcher (this project's own jest,
// through toolchain.path, in the real sandbox). The target sits in a describe with an empty title, so
// jest's full name (" counts words") has a space the report's trimmed id lost: the launcher's name
// pattern missed it, jest reported it skipped, and the repeat read that skip as the target's
// outcome (head passed, skipped, skipped: flaky, a false FAIL). Now the pattern lets the space
// through, and a listed test jest reports skipped is no proof of the selection (the whole suite runs).

const COUNT_TEST = '"use strict";\nconst { count } = require("../src/words.js");\n'
  + 'describe("", () => {\n  test("counts words", () => {\n    expect(count("a b  c")).toBe(3);\n  });\n});\n';

describe("jest: a task target repeated through the launcher's selection", () => {
  it("runs the target in every repeat, selected and proven: an honest fix is stable", async () => {
    const command = 'node "$RANEX_REPORTERS/jest-run.cjs"';
    const repo = wordsRepository({ command, module: false, words: '"use strict";\nexports.count = (text) => text.split(" ").length;\n', wordsTest: COUNT_TEST });
    repo.commit({
      ".github/ranex.yml": toolchainPolicy(command).replace("tests.red_green]", "tests.red_green, tests.stable]"),
      ".ranex/tasks/count.yml": "id: count\ntitle: count words split by any spaces\ntargets: ['test/words.test.js::counts words']\n",
    }, "task: count");
    repo.branch("fix");
    repo.commit({ "src/words.js": '"use strict";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n' }, "words: any spaces");
    const judged = await judge({ source: repo.dir, base: "main", head: "fix", task: "count", dataDir: tempDir("ranex-data-") });
    const stable = judged.verdict.claims.find((c) => c.name === "tests.stable");
    expect(stable?.details.map((d) => d.message)).toEqual(["test/words.test.js::counts words: base failed, failed, failed; head passed, passed, passed"]);
    expect(judged.verdict.verdict).toBe("CANDIDATE");
  }, 300_000);
});
