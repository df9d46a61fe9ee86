import { describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { tempDir, TestRepo } from "../helpers/git-repo.js";

// A verdict never depends on the cache (issue 22). The policy's lint check generates a module the
// tests import. When checks ran in the head's own tree before its tests (cold: the base not cached),
// the tests found the generated module and passed; warm (checks on a copy beside the head run) they
// did not: the same honest head was CANDIDATE cold and FAIL warm. Checks now always run on a tree
// of their own, and the generation a test needs belongs in the test command (or setup).
function generatingRepo(command: string): TestRepo {
  const repo = TestRepo.init();
  repo.commit({
    ".github/ranex.yml": [
      "version: 1",
      "tests:",
      `  command: ${JSON.stringify(command)}`,
      "  timeout: 60",
      "checks:",
      "  - name: lint",
      "    run: 'python3 gen.py && python3 -m pyflakes --version >/dev/null 2>&1; true'",
      "require: [tests.regression, check:lint]",
    ].join("\n") + "\n",
    "gen.py": "with open('src/generated.py', 'w') as f:\n    f.write('ANSWER = 42\\n')\n",
    ".gitignore": "src/generated.py\n",
    "src/__init__.py": "",
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_generated.py": "from src.generated import ANSWER\n\ndef test_answer():\n    assert ANSWER == 42\n",
    "tests/test_calc.py": "from src.calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
  }, "base");
  repo.branch("honest");
  repo.commit({
    // No new test file: only the head and the base run, as in the report.
    "src/calc.py": "def add(a, b):\n    # plain addition\n    return a + b\n",
  }, "honest: comment");
  repo.checkout("main");
  return repo;
}

const claims = (j: Judgment): string[] =>
  j.verdict.claims.filter((c) => c.name !== "approval.independent").map((c) => `${c.name}: ${c.status}: ${c.reason.replace(/ in [\d.]+ s/, "")}`);

describe("the same head gets the same claims cold and warm", () => {
  it("when a check generates files the tests need: the tests never see them, cold or warm", async () => {
    const repo = generatingRepo('python3 -m pytest -p no:cacheprovider --continue-on-collection-errors --junitxml="$RANEX_JUNIT" tests');
    const dataDir = tempDir();
    const cold = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
    const warm = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
    expect(cold.timings["base-cached"]).toBeUndefined();
    expect(warm.timings["base-cached"]).toBe(0);
    expect(claims(warm)).toEqual(claims(cold));
    // Neither the base nor the head can load the test that needs the generated module.
    const regression = cold.verdict.claims.find((c) => c.name === "tests.regression");
    expect(regression?.status).toBe("fail");
    expect(regression?.reason).toContain("test files failed to load on head: tests/test_generated.py");
    expect(cold.verdict.claims.find((c) => c.name === "check:lint")?.status).toBe("pass");
  }, 240_000);

  it("when the generation is part of the test command: CANDIDATE cold and warm", async () => {
    const repo = generatingRepo('python3 gen.py && python3 -m pytest -p no:cacheprovider --junitxml="$RANEX_JUNIT" tests');
    const dataDir = tempDir();
    const cold = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
    const warm = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
    expect(warm.timings["base-cached"]).toBe(0);
    expect(cold.verdict.verdict).toBe("CANDIDATE");
    expect(warm.verdict.verdict).toBe("CANDIDATE");
    expect(claims(warm)).toEqual(claims(cold));
  }, 240_000);
});
