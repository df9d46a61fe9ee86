import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";
import { pytest9Bin, pytestVersion } from "../helpers/pytest9.js";

// A selection that did not take effect is never an outcome (issue 22): a command that sets
// PYTHONPATH itself drops the gate's selection plugin from the path; with pytest 9 the repeats then
// ran nothing the gate asked for, and tests.stable called an honest fix flaky.
function srcLayoutRepo(toolchain: string[]): TestRepo {
  const repo = TestRepo.init();
  repo.commit({
    ".github/ranex.yml": [
      "version: 1",
      "tests:",
      "  command: 'PYTHONPATH=src python3 -m pytest -p no:cacheprovider --junitxml=\"$RANEX_JUNIT\" tests'",
      "  timeout: 60",
      "  repeat: 3",
      `toolchain:\n  path: [${toolchain.map((t) => JSON.stringify(t)).join(", ")}]`,
      "require: [tests.regression, tests.red_green, tests.stable]",
    ].join("\n") + "\n",
    ".ranex/tasks/div.yml": "id: div\ntitle: Divide\nacceptance: [div divides]\ntargets: ['tests/test_div.py::test_div']\n",
    "src/calc/__init__.py": "def add(a, b):\n    return a + b\n\ndef div(a, b):\n    raise NotImplementedError\n",
    "tests/test_add.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    "tests/test_div.py": "from calc import div\n\ndef test_div():\n    assert div(6, 3) == 2\n",
  }, "base");
  repo.branch("fix");
  repo.commit({ "src/calc/__init__.py": "def add(a, b):\n    return a + b\n\ndef div(a, b):\n    return a / b\n" }, "fix div");
  repo.checkout("main");
  return repo;
}

describe("a selection that did not take effect", () => {
  it("is proven by the plugin when it did: the repeats of a command that extends PYTHONPATH stay selected", async () => {
    const repo = srcLayoutRepo([pytest9Bin()]);
    repo.commit({ ".github/ranex.yml": readFileSync(join(repo.dir, ".github/ranex.yml"), "utf8").replace("PYTHONPATH=src ", 'PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" ') }, "extend PYTHONPATH");
    git(repo.dir, "branch", "-f", "fix2", "fix");
    repo.checkout("fix2");
    git(repo.dir, "merge", "-q", "--no-edit", "main");
    repo.checkout("main");
    const judged = await judge({ source: repo.dir, base: "main", head: "fix2", task: "div", dataDir: tempDir() });
    const stable = judged.verdict.claims.find((c) => c.name === "tests.stable");
    expect(stable?.details.map((d) => d.message)).toEqual(["tests/test_div.py::test_div: base failed, failed, failed; head passed, passed, passed"]);
    expect(judged.verdict.verdict).toBe("CANDIDATE");
  }, 300_000);

  for (const [label, toolchain] of [["pytest 9 (from the package index)", () => [pytest9Bin()]], ["Debian's pytest", () => []]] as const) {
    it(`is never read as an outcome: an honest fix is stable, cold and warm, with ${label}`, async () => {
      const bin = toolchain();
      expect(pytestVersion(bin[0] ?? null)).toMatch(label.startsWith("pytest 9") ? /^9\./ : /^[78]\./);
      const repo = srcLayoutRepo(bin);
      const dataDir = tempDir();
      for (const round of ["cold", "warm"]) {
        const judged = await judge({ source: repo.dir, base: "main", head: "fix", task: "div", dataDir });
        const stable = judged.verdict.claims.find((c) => c.name === "tests.stable");
        expect(stable?.details.map((d) => d.message), round).toEqual([
          "tests/test_div.py::test_div: base failed, failed, failed; head passed, passed, passed",
          "repeats ran the whole suite: the selection did not take effect (the gate's pytest plugin did not load (does the command set PYTHONPATH or PYTEST_ADDOPTS itself?))",
        ]);
        expect(judged.verdict.verdict, round).toBe("CANDIDATE");
      }
    }, 300_000);
  }
});
