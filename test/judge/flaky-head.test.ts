import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { TestRepo, tempDir } from "../helpers/git-repo.js";
import { PYTEST } from "../helpers/deps-repo.js";

// Found on pillarjs/path-to-regexp (issue 22): a ReDoS checker with a 10 s budget per route passed
// on the base and failed in the head's run of a cold judgment under load; the same head was
// CANDIDATE warm. tests.regression said "passed on base, failed on head" and nothing of its repeats.
// A time budget is what a test under load misses; here a test stands for it that misses its budget on
// the first run of a tree whose code has a slow start (a marker file in the tree counts the runs, and
// the gate repeats a regression suspect on the same tree), so the head's runs go failed, passed,
// passed, and the base's pass every time. The verdict is still FAIL: the gate cannot tell the
// machine's load from a change that made the test flaky. But it is tests.stable that fails, naming
// the runs, and not tests.regression blaming the change.
const BUDGET_TEST = [
  "import os",
  "from src import calc",
  "",
  "def test_budget():",
  "    # Over budget on the first run of a tree whose code starts slowly.",
  "    if getattr(calc, 'SLOW_START', False) and not os.path.exists('.warmed'):",
  "        open('.warmed', 'w').close()",
  "        assert False, 'took 12 s, over the budget of 10 s'",
  "",
].join("\n");

function flakyRepo(): TestRepo {
  const repo = TestRepo.init();
  repo.commit({
    ".github/ranex.yml": ["version: 1", "tests:", `  command: ${JSON.stringify(PYTEST)}`, "  timeout: 60", "require: [tests.regression, tests.red_green, tests.stable]", ""].join("\n"),
    "src/__init__.py": "",
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_budget.py": BUDGET_TEST,
  }, "base");
  repo.branch("honest");
  repo.commit({
    "src/calc.py": "SLOW_START = True\n\ndef add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return a * b\n",
    "tests/test_mul.py": "from src.calc import mul\n\ndef test_mul():\n    assert mul(6, 7) == 42\n",
  }, "honest");
  repo.checkout("main");
  return repo;
}

const claim = (j: Awaited<ReturnType<typeof judge>>, name: string) => j.verdict.claims.find((c) => c.name === name);

describe("a test that passed on base and changes between runs of the head", () => {
  it("fails tests.stable as flaky, naming its runs, and tests.regression does not blame the change", async () => {
    const repo = flakyRepo();
    const judged = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir: tempDir() });
    expect(judged.verdict.verdict).toBe("FAIL");
    expect(judged.verdict.class).toBe("incomplete");
    expect(claim(judged, "tests.regression")?.status).toBe("pass");
    expect(claim(judged, "tests.regression")?.details.filter((d) => d.kind === "flaky").map((d) => d.message)).toEqual([
      "tests/test_budget.py::test_budget passed on base, failed on head (runs: base passed, passed, passed; head failed, passed, passed): its outcome changes between runs of the head, so no regression is shown; tests.stable fails it as flaky",
    ]);
    const stable = claim(judged, "tests.stable");
    expect(stable?.status).toBe("fail");
    expect(stable?.reason).toContain("tests that passed in every run of the base changed their outcome between runs of the head: tests/test_budget.py::test_budget");
    expect(stable?.details.map((d) => d.message)).toContain("tests/test_budget.py::test_budget: base passed, passed, passed; head failed, passed, passed (passed on base, not a target)");
    expect(claim(judged, "tests.red_green")?.status).toBe("pass");
  }, 240_000);
});
