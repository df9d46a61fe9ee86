import { describe, expect, it } from "vitest";
import { moduleNames, testlessFiles, treeLinks } from "../../src/judge/tree-facts.js";
import { PolicySchema } from "../../src/policy/schema.js";
import { openRepository } from "../../src/workspace/index.js";
import { tempDir, TestRepo } from "../helpers/git-repo.js";

// What the diff claims read from the trees besides the diff (issue 19), from a real repository.

const policy = PolicySchema.parse({ version: 1, tests: { command: "node --test" } });

describe("tree facts", () => {
  it("reads every symlink of the head, the new test-named files that define no test, and the base's packages", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({
      "package.json": JSON.stringify({ dependencies: { "left-pad": "1" }, devDependencies: { "@scope/util": "2" } }),
      "node_modules/committed/index.js": "module.exports = 1;\n",
      "lnk": { symlink: "tests" },
      "tests/test_a.py": "def test_a():\n    pass\n",
      "pyproject.toml": "[tool.pytest.ini_options]\npythonpath = [\"src\", \"./lib/\", \"/abs\", \"../up\"]\n",
      "pytest.ini": "[pytest]\npythonpath = vendor .\n",
    });
    const head = repo.commit({
      "src/up": { symlink: "../.." },
      "src/pkg/test_vectors.py": "VECTORS = [1]\n",
      "src/pkg/test_real.py": "def test_real():\n    assert True\n",
      "src/x.test.js": "module.exports = {};\n",
      "tests/data/input.json": "{}\n",
    });
    const opened = await openRepository(repo.dir, tempDir());
    expect(await treeLinks(opened, head)).toEqual(new Map([["lnk", "tests"], ["src/up", "../.."]]));
    const facts = await opened.diff(base, head);
    expect([...await testlessFiles(opened, head, facts, policy)].sort()).toEqual(["src/pkg/test_vectors.py", "src/x.test.js"]);
    const names = await moduleNames(opened, base, (await opened.listFiles(base)).map((f) => f.path), policy);
    expect(names.nodePackages).toEqual(["@scope/util", "committed", "left-pad"]);
    expect(names.nodeBuiltins).toContain("assert");
    expect(names.pytestPythonPath).toEqual(["lib", "src", "vendor"]);
    expect(names.pythonStdlib).toContain("statistics");
    // The machine's python3 sees pytest installed (Debian's python3-pytest, which the sandbox uses).
    expect(names.pythonInstalled).toContain("pytest");
  }, 60_000);
});
