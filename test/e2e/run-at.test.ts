import { describe, expect, it } from "vitest";
import { TestRepo, tempDir } from "../helpers/git-repo.js";
import { runCli } from "./run-cli.js";

// `ranex tests --repo --rev` (and so `ranex init`'s try and `ranex task check`) as a person sees it:
// the real CLI on real repositories, in the real sandbox (issue 15).

const PYTEST_POLICY = [
  "version: 1",
  "tests:",
  "  command: python3 -m pytest -q -p no:cacheprovider --junitxml=\"$RANEX_JUNIT\" tests",
  "  timeout: 60",
  "require: [tests.regression]",
  "",
].join("\n");

describe("ranex tests: a suite whose every test file fails to import", () => {
  it("leads with the files that failed to load and the last lines of output, and says how to make the package importable", async () => {
    // A src layout: `calc` lives in src/, which is not on the import path unless installed or named in PYTHONPATH.
    const repo = TestRepo.init();
    repo.commit({
      ".github/ranex.yml": PYTEST_POLICY,
      "src/calc/__init__.py": "def add(a, b):\n    return a + b\n",
      "tests/test_add.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
      "tests/test_more.py": "from calc import add\n\ndef test_more():\n    assert add(2, 2) == 4\n",
    });
    const listed = await runCli(["tests", "--repo", repo.dir, "--rev", "main", "--data-dir", tempDir("ranex-data-")], 240_000);
    expect(listed.stdout).toMatch(/^problem: 2 test file\(s\) failed to load and no test ran: tests\/test_add\.py, tests\/test_more\.py/m);
    expect(listed.stdout).toMatch(/^problem: .*; first error: .*No module named 'calc'.*; last output: .*2 errors/m);
    expect(listed.stdout).toMatch(/^fix: make the package importable in the sandbox: .*PYTHONPATH=src.*install it in tests\.setup/m);
    expect(listed.stdout).not.toContain("holds no tests");
  }, 300_000);
});
