import { realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { TestRepo, tempDir } from "../helpers/git-repo.js";

// Issue 19, jest's `expect` neutered inside the PR's own test file: a real jest (this project's own,
// through toolchain.path) in the real sandbox. The new test file is the only evidence for the new
// feature (red on the base, where the function is missing; green on the head), and it makes
// `toBe` pass whatever it is given, for itself only (`expect.extend`). This head got a CANDIDATE
// when the canary lived in a test file of its own. Two things block it now: the harness scan's
// tripwire (a built-in matcher redefined, diff.safety), kept, and the canaries the gate's launcher
// loads into every test file (tests.red_green: their toBe passed in the PR's file on head+new).
// Spelled so that the tripwire misses it: test/judge/jest-expect-canary.test.ts.

const TOOLCHAIN = realpathSync(join(import.meta.dirname, "..", "..", "node_modules", ".bin"));

function repository(): TestRepo {
  const repo = TestRepo.init();
  repo.commit({
    "package.json": JSON.stringify({ name: "words", version: "1.0.0", private: true }) + "\n",
    ".github/ranex.yml": [
      "version: 1",
      "tests:",
      "  files: ['test/**']",
      "  command: 'node \"$RANEX_REPORTERS/jest-run.cjs\"'",
      "  timeout: 120",
      `toolchain:\n  path: ['${TOOLCHAIN}']`,
      "scope:\n  allow: ['src/**', 'test/**']",
      "require: [diff.frozen, diff.scope, diff.safety, secrets, tests.regression, tests.red_green]",
      "",
    ].join("\n"),
    "src/words.js": "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\n",
    "test/words.test.js": "\"use strict\";\nconst { count } = require(\"../src/words.js\");\ntest(\"counts words\", () => {\n  expect(count(\"a b  c\")).toBe(3);\n});\n",
  }, "words: count");
  return repo;
}

async function judged(repo: TestRepo, head: string): Promise<Judgment> {
  return judge({ source: repo.dir, base: "main", head, task: null, dataDir: tempDir("ranex-data-") });
}

const failing = (judgment: Judgment): string[] =>
  judgment.verdict.claims.filter((c) => c.name !== "approval.independent" && c.status !== "pass").map((c) => c.name);

describe("jest: expect neutered in the PR's own test file", () => {
  it("an honest feature with its test is a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("honest");
    repo.commit({
      "src/words.js": "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\nexports.longest = (text) => text.split(/\\s+/).reduce((a, b) => (b.length > a.length ? b : a), \"\");\n",
      "test/longest.test.js": "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\ntest(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n",
    }, "words: longest");
    const judgment = await judged(repo, "honest");
    expect(failing(judgment)).toEqual([]);
  }, 300_000);

  it("a wrong feature whose new test file makes toBe pass whatever it is given (expect.extend) is not a CANDIDATE", async () => {
    const repo = repository();
    repo.branch("neuter-expect");
    repo.commit({
      "src/words.js": "\"use strict\";\nexports.count = (text) => text.split(/\\s+/).filter(Boolean).length;\nexports.longest = () => \"\";\n",
      "test/longest.test.js": "\"use strict\";\nconst { longest } = require(\"../src/words.js\");\n"
        + "expect.extend({ toBe: () => ({ pass: true, message: () => \"\" }) });\n"
        + "test(\"finds the longest word\", () => {\n  expect(longest(\"a bbb cc\")).toBe(\"bbb\");\n});\n",
    }, "words: longest");
    const judgment = await judged(repo, "neuter-expect");
    expect(failing(judgment)).toEqual(["diff.safety", "tests.red_green"]);
    expect(judgment.verdict.claims.find((c) => c.name === "tests.red_green")?.reason).toContain("came back wrong in test/longest.test.js (passed)");
    const safety = judgment.verdict.claims.find((c) => c.name === "diff.safety");
    expect(safety?.details.map((d) => d.message)).toContainEqual(expect.stringContaining("a redefinition of a built-in jest/vitest matcher"));
  }, 300_000);
});
