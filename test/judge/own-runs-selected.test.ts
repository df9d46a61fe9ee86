import { describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { initPolicyRepo } from "../helpers/init-policy-repo.js";
import { tempDir, TestRepo } from "../helpers/git-repo.js";

// The PR's own runs (head+new, base+new) read only its new test files' tests, so only those run
// where the runner can select them (issue 22: a warm judgment costs about one run of the suite).
// The verdicts stay what they were with the whole suite: an honest change is a CANDIDATE, a new test
// that passes on the base or fails on the head FAILs tests.red_green; a selection the run does not
// prove is never read, and the whole suite runs instead.

const redGreen = (j: Judgment) => j.verdict.claims.find((c) => c.name === "tests.red_green");
/** What the verdict says of one run: its report line (test cases, and how it was selected). */
const report = (j: Judgment, name: string): string =>
  j.verdict.claims.flatMap((c) => c.runs ?? []).find((r) => r.run === name)?.report ?? "(no such run)";
const why = (j: Judgment): string => j.verdict.reasons.join("; ");

/** One judgment per head on one data folder: the base and dependencies are cached after the first. */
async function judged(dir: string, dataDir: string, head: string, task: string | null): Promise<Judgment> {
  return judge({ source: dir, base: "main", head, task, dataDir });
}

describe("pytest: the PR's own runs select its new test files through the gate's plugin", () => {
  function pytestRepo(command: string, require = "[tests.regression, tests.red_green]"): TestRepo {
    const repo = TestRepo.init();
    repo.commit({
      ".github/ranex.yml": [
        "version: 1",
        "tests:",
        `  command: '${command}'`,
        "  timeout: 60",
        `require: ${require}`,
      ].join("\n") + "\n",
      "src/calc/__init__.py": "def add(a, b):\n    return a + b\n",
      "tests/test_add.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n",
    }, "base");
    const mul = "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return a * b\n";
    repo.branch("honest");
    repo.commit({ "src/calc/__init__.py": mul, "tests/test_mul.py": "from calc import mul\n\ndef test_mul():\n    assert mul(2, 3) == 6\n" }, "mul");
    repo.branch("green-on-base");
    repo.commit({ "src/calc/__init__.py": mul, "tests/test_more.py": "from calc import add\n\ndef test_add_more():\n    assert add(2, 2) == 4\n" }, "a test that needs no change");
    repo.branch("red-on-head");
    repo.commit({ "src/calc/__init__.py": mul, "tests/test_mul.py": "from calc import mul\n\ndef test_mul():\n    assert mul(2, 3) == 7\n" }, "a test the change does not pass");
    repo.checkout("main");
    return repo;
  }

  it("an honest change is a CANDIDATE; a new test green on base or red on head FAILs, each run of only the new file", async () => {
    const repo = pytestRepo('PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest -p no:cacheprovider --junitxml="$RANEX_JUNIT" tests', "[tests.regression, tests.red_green, tests.stable]");
    const dataDir = tempDir();
    const honest = await judged(repo.dir, dataDir, "honest", null);
    expect(honest.verdict.verdict, why(honest)).toBe("CANDIDATE");
    expect(redGreen(honest)?.details.find((d) => d.kind === "red-green")?.message).toBe("tests/test_mul.py::test_mul: its file failed to load on base, passed on head");
    // Only the new file ran in the PR's own runs; the head run is the whole suite without it.
    expect(report(honest, "head+new")).toBe("1 test case; selected for the PR's new test files: tests/test_mul.py");
    expect(report(honest, "base+new")).toBe("0 test cases, 1 file failed to load; selected for the PR's new test files: tests/test_mul.py");
    expect(report(honest, "head")).toBe("2 test cases");
    // tests.stable: the new file repeats right after each of its runs, on base too where it cannot
    // load (the ids are the ones head+new found in it).
    expect(honest.verdict.claims.find((c) => c.name === "tests.stable")?.details.map((d) => d.message))
      .toEqual(["tests/test_mul.py::test_mul: base not loaded, not loaded, not loaded; head passed, passed, passed"]);
    expect(honest.timings["repeats:head+new"]).toBeGreaterThan(0);

    const greenOnBase = await judged(repo.dir, dataDir, "green-on-base", null);
    expect(greenOnBase.verdict.verdict).toBe("FAIL");
    expect(redGreen(greenOnBase)?.reason).toBe("targets that do not fail on base: tests/test_more.py::test_add_more");
    expect(report(greenOnBase, "base+new")).toBe("1 test case; selected for the PR's new test files: tests/test_more.py");

    const redOnHead = await judged(repo.dir, dataDir, "red-on-head", null);
    expect(redOnHead.verdict.verdict).toBe("FAIL");
    expect(redGreen(redOnHead)?.reason).toBe("targets that do not pass on head: tests/test_mul.py::test_mul");
    expect(report(redOnHead, "head+new")).toBe("1 test case; selected for the PR's new test files: tests/test_mul.py");
  }, 300_000);

  it("a selection the run does not prove is never read: the whole suite runs on the same tree, with the same verdicts", async () => {
    // The command sets PYTHONPATH outright: the gate's plugin is not on the path, so no run of it proves anything.
    const repo = pytestRepo('PYTHONPATH=src python3 -m pytest -p no:cacheprovider --junitxml="$RANEX_JUNIT" tests');
    const dataDir = tempDir();
    const lost = "the whole suite ran: selecting the PR's new test files did not take effect (the gate's pytest plugin did not load (does the command set PYTHONPATH or PYTEST_ADDOPTS itself?))";
    const honest = await judged(repo.dir, dataDir, "honest", null);
    expect(honest.verdict.verdict, why(honest)).toBe("CANDIDATE");
    expect(report(honest, "head+new")).toBe(`3 test cases; ${lost}`);
    const greenOnBase = await judged(repo.dir, dataDir, "green-on-base", null);
    expect(redGreen(greenOnBase)?.reason).toBe("targets that do not fail on base: tests/test_more.py::test_add_more");
    expect(report(greenOnBase, "base+new")).toBe(`3 test cases; ${lost}`);
    const redOnHead = await judged(repo.dir, dataDir, "red-on-head", null);
    expect(redGreen(redOnHead)?.reason).toBe("targets that do not pass on head: tests/test_mul.py::test_mul");
  }, 300_000);
});

const initRepo = async (name: string): Promise<TestRepo> => new TestRepo(await initPolicyRepo(name, ["honest"]));

interface CompiledCase {
  name: string;
  newFile: string;
  ownId: string;
  ownCases: number;
  greenOnBase: Record<string, string>;
  greenId: string;
  redOnHead: Record<string, string>;
  redId: string;
}

describe.each<CompiledCase>([
  {
    name: "go-calc", newFile: "mul_more_test.go", ownId: "example.com/calc/TestMulNegative", ownCases: 7, // the whole package, which holds go-calc's golden test too since the frozen test data
    greenOnBase: { "add_more_test.go": 'package calc\n\nimport "testing"\n\nfunc TestAddMore(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal("Add")\n\t}\n}\n' },
    greenId: "example.com/calc/TestAddMore",
    redOnHead: { "mul_wrong_test.go": 'package calc\n\nimport "testing"\n\nfunc TestMulWrong(t *testing.T) {\n\tif Mul(2, 2) != 5 {\n\t\tt.Fatal("Mul")\n\t}\n}\n' },
    redId: "example.com/calc/TestMulWrong",
  },
  {
    name: "rust-calc", newFile: "tests/mul_more.rs", ownId: "calc::mul_more::muls_negative", ownCases: 1,
    greenOnBase: { "tests/add_more.rs": "#[test]\nfn adds_more() {\n    assert_eq!(calc::add(2, 2), 4);\n}\n" },
    greenId: "calc::add_more::adds_more",
    redOnHead: { "tests/mul_wrong.rs": "#[test]\nfn muls_wrong() {\n    assert_eq!(calc::mul(2, 2), 5);\n}\n" },
    redId: "calc::mul_wrong::muls_wrong",
  },
])("$name: the PR's own runs select its new test files (go: their packages; cargo: their test targets)", ({ name, newFile, ownId, ownCases, greenOnBase, greenId, redOnHead, redId }) => {
  it("an honest change is a CANDIDATE; a new test green on base or red on head FAILs; a new file the runner cannot select runs the whole suite", async () => {
    const repo = await initRepo(name);
    repo.branch("green-on-base");
    repo.commit(greenOnBase, "a test that needs no change");
    repo.branch("red-on-head", "honest");
    repo.commit(redOnHead, "a test the change does not pass");
    // A data file beside the new test file: a new file the runner cannot select by itself.
    repo.branch("with-data", "honest");
    repo.commit({ "tests/data/numbers.txt": "6 7 42\n" }, "test data");
    repo.checkout("main");
    const dataDir = tempDir("ranex-data-");

    const honest = await judged(repo.dir, dataDir, "honest", "mul");
    expect(honest.verdict.verdict, why(honest)).toBe("CANDIDATE");
    expect(report(honest, "head+new")).toBe(`${ownCases} test case${ownCases === 1 ? "" : "s"}; selected for the PR's new test files: ${newFile}`);
    expect(report(honest, "base+new")).toContain(`; selected for the PR's new test files: ${newFile}`);
    // tests.stable (init's policy requires it): the PR's own tests repeat by file right after their run.
    const stable = honest.verdict.claims.find((c) => c.name === "tests.stable");
    expect(stable?.status).toBe("pass");
    expect(stable?.details.map((d) => d.message)).toContain(`${ownId}: base failed, failed, failed; head passed, passed, passed`);
    expect(honest.timings["repeats:head+new"]).toBeGreaterThan(0);
    expect(honest.timings["repeats:base+new"]).toBeGreaterThan(0);

    const green = await judged(repo.dir, dataDir, "green-on-base", null);
    expect(green.verdict.verdict).toBe("FAIL");
    expect(redGreen(green)?.reason).toBe(`targets that do not fail on base: ${greenId}`);
    expect(report(green, "base+new")).toContain("; selected for the PR's new test files: ");

    const red = await judged(repo.dir, dataDir, "red-on-head", "mul");
    expect(red.verdict.verdict).toBe("FAIL");
    expect(redGreen(red)?.reason).toBe(`targets that do not pass on head: ${redId}`);
    expect(red.verdict.claims.find((c) => c.name === "tests.stable")?.details.map((d) => d.message)).toContain(`${redId}: base failed, failed, failed; head failed, failed, failed`);
    expect(report(red, "head+new")).toContain("; selected for the PR's new test files: ");

    const withData = await judged(repo.dir, dataDir, "with-data", "mul");
    expect(withData.verdict.verdict, why(withData)).toBe("CANDIDATE");
    expect(report(withData, "head+new")).not.toContain("selected");
    expect(report(withData, "head+new")).toBe(report(withData, "head").replace(/^\d+/, (n) => String(Number(n) + 1)));
  }, 1_500_000);
});
