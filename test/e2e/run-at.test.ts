import { describe, expect, it } from "vitest";
import { git, TestRepo, tempDir } from "../helpers/git-repo.js";
import { cacheEntries, depsRepo } from "../helpers/deps-repo.js";
import { parseVerdict, runCli } from "./run-cli.js";

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


describe("ranex tests lays out a run as a judgment does", () => {
  it("keeps frozen files read-only: a test that writes into a test file fails there, as it would in a judgment", async () => {
    const repo = TestRepo.init();
    repo.commit({
      ".github/ranex.yml": PYTEST_POLICY,
      "tests/test_touch.py": "def test_writes_itself():\n    with open(__file__, 'a') as f:\n        f.write('# touched\\n')\n",
    });
    const listed = await runCli(["tests", "--repo", repo.dir, "--rev", "main", "--data-dir", tempDir("ranex-data-"), "--json"], 240_000);
    expect(listed.code, listed.stderr).toBe(0);
    const tests = (JSON.parse(listed.stdout) as { tests: { id: string; result: string }[] }).tests;
    expect(tests).toEqual([{ id: "tests/test_touch.py::test_writes_itself", file: "tests/test_touch.py", result: "failed" }]);
  }, 300_000);

  it("installs dependencies once into the cache under the data dir; later runs and a judgment take them from there", async () => {
    const repo = depsRepo();
    const data = tempDir("ranex-data-");
    const first = await runCli(["tests", "--repo", repo.dir, "--rev", "main", "--data-dir", data], 240_000);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(/passed +tests\/test_value\.py::test_value/);
    expect(first.stdout).toMatch(/\(checkout [\d.]+ s, setup [\d.]+ s \(installed once, now cached\), tests [\d.]+ s\)/);
    expect(cacheEntries(data)).toHaveLength(1);

    const again = await runCli(["tests", "--repo", repo.dir, "--rev", "main", "--data-dir", data], 240_000);
    expect(again.stdout).toMatch(/passed +tests\/test_value\.py::test_value/);
    expect(again.stdout).toMatch(/\(checkout [\d.]+ s, dependencies from cache \(installed once in [\d.]+ s on \d{4}-\d\d-\d\d\), tests [\d.]+ s\)/);
    expect(cacheEntries(data)).toHaveLength(1);

    // The judgment finds what `ranex tests` installed: no setup runs, every run says so.
    const judged = parseVerdict(await runCli(["judge", "--repo", repo.dir, "--base", "main", "--head", "honest", "--data-dir", data, "--json"], 240_000));
    expect(judged.verdict).toBe("CANDIDATE");
    const runs = (judged as unknown as { runs: { run: string; setup?: string }[] }).runs.filter((r) => !r.run.startsWith("check:"));
    expect(runs.map((r) => r.run).sort()).toEqual(["base", "base+new", "head", "head+new"]);
    for (const run of runs) expect(run.setup, run.run).toMatch(/^dependencies from cache \(installed once in [\d.]+ s on \d{4}-\d\d-\d\d, key sha256:[0-9a-f]{64}\)$/);
    expect(cacheEntries(data)).toHaveLength(1);
  }, 600_000);
});

describe("one notion of a task target (issue 22)", () => {
  /** A base with one red target, a frozen test file, and a head that fixes the red one. */
  function taskRepo(): TestRepo {
    const repo = TestRepo.init();
    repo.commit({
      ".github/ranex.yml": PYTEST_POLICY.replace("require: [tests.regression]", "require: [tests.regression, tests.red_green]"),
      ".ranex/tasks/div.yml": "id: div\ntitle: Divide\nacceptance: [div divides]\ntargets:\n  - 'tests/test_calc.py::test_div'\n  - 'tests/test_calc.py::test_divide'\n  - 'tests/test_round.py::test_round'\n",
      "src/__init__.py": "",
      "src/calc.py": "def div(a, b):\n    raise NotImplementedError\n",
      "tests/test_calc.py": "from src.calc import div\n\ndef test_div():\n    assert div(6, 3) == 2\n\ndef test_div_by_one():\n    assert div(5, 1) == 5\n",
    }, "base");
    repo.branch("fix");
    repo.commit({ "src/calc.py": "def div(a, b):\n    return a / b\n" }, "fix");
    repo.checkout("main");
    return repo;
  }

  it("task check calls an id absent on the base absent, not red, exits 1 and names ids that look alike; the judge agrees", async () => {
    const repo = taskRepo();
    const data = tempDir("ranex-data-");
    const checked = await runCli(["task", "check", "div", "--repo", repo.dir, "--base", "main", "--data-dir", data], 240_000);
    expect(checked.code, checked.stdout + checked.stderr).toBe(1);
    expect(checked.stdout).toMatch(/^red +tests\/test_calc\.py::test_div: failed on the base/m);
    expect(checked.stdout).toMatch(/^ABSENT +tests\/test_calc\.py::test_divide: no test has this id on the base, and its file tests\/test_calc\.py is frozen there, so no PR can add it; the judge calls it absent, not red$/m);
    expect(checked.stdout).toMatch(/^ABSENT +tests\/test_round\.py::test_round: no test has this id on the base, and absent is not red/m);
    expect(checked.stdout).toMatch(/^ids on the base that look alike: tests\/test_calc\.py::test_div$/m);
    expect(checked.stdout).toMatch(/^2 target\(s\) cannot work as written$/m);
    // The judge reads the same ids the same way: the absent ones are not red, whatever the head does.
    const judged = await runCli(["judge", "--repo", repo.dir, "--base", "main", "--head", "fix", "--task", "div", "--data-dir", data, "--json"], 240_000);
    const redGreen = parseVerdict(judged).claims.find((c) => c.name === "tests.red_green");
    expect(redGreen?.status).toBe("fail");
    expect(redGreen?.reason).toContain("targets that do not fail on base: tests/test_calc.py::test_divide, tests/test_round.py::test_round");
  }, 600_000);

  it("ranex tests --rev HEAD is the checkout's HEAD, not the default branch's tip", async () => {
    const repo = taskRepo();
    repo.checkout("fix");
    const head = git(repo.dir, "rev-parse", "HEAD");
    const listed = await runCli(["tests", "--repo", repo.dir, "--rev", "HEAD", "--data-dir", tempDir("ranex-data-"), "--json"], 240_000);
    const out = JSON.parse(listed.stdout) as { commit: string; tests: { id: string; result: string }[] };
    expect(out.commit).toBe(head);
    expect(out.tests).toContainEqual({ id: "tests/test_calc.py::test_div", file: "tests/test_calc.py", result: "passed" });
    const previous = await runCli(["tests", "--repo", repo.dir, "--rev", "HEAD~1", "--data-dir", tempDir("ranex-data-"), "--json"], 240_000);
    expect((JSON.parse(previous.stdout) as { commit: string }).commit).toBe(git(repo.dir, "rev-parse", "main"));
  }, 600_000);
});
