import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectTestRunner } from "../../src/policy/detect.js";
import { renderStarter } from "../../src/policy/init.js";
import { parsePolicy } from "../../src/policy/index.js";
import { execFileSync } from "node:child_process";
import { requirementsFiles, testExtras, testGroupRequirements } from "../../src/runners/python-deps.js";
import { toxSetenv } from "../../src/runners/python.js";
import { tempDir } from "../helpers/git-repo.js";

// What `ranex init` writes for Python repositories whose tests need packages from the index: the
// setup that fills .venv (the lock first, then requirements files, then a declared package), and a
// test command that runs that venv's python. pip-calc's end-to-end judgment is test/e2e/pip-calc.test.ts.
function repoWith(files: Record<string, string>): string {
  const dir = tempDir("ranex-py-");
  for (const [path, text] of Object.entries({ "tests/test_x.py": "def test_x():\n    assert True\n", ...files })) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("Python dependencies in ranex init", () => {
  it.each([
    [{ "uv.lock": "version = 1\n", "pyproject.toml": "[project]\nname='x'\ndependencies=['attrs']\n" }, /\/tmp\/ranex-uv\/bin\/uv sync --frozen --all-extras$/, "uv.lock"],
    [{ "poetry.lock": "# lock\n", "pyproject.toml": "[tool.poetry]\nname='x'\n" }, /export REQUESTS_CA_BUNDLE=\/etc\/ssl\/certs\/ca-certificates\.crt; } && .*\/tmp\/ranex-poetry\/bin\/poetry install --no-root --no-interaction --all-extras$/, "poetry.lock"],
    [{ "pdm.lock": "# lock\n", "pyproject.toml": "[project]\nname='x'\n" }, /pip install [^&]* "pdm\[locked\]" && .*\/tmp\/ranex-pdm\/bin\/pdm sync --no-self -G :all$/, "pdm.lock"],
    [{ "requirements.txt": "attrs\n", "requirements-dev.txt": "pytest\n", "requirements-docs.txt": "sphinx\n" }, /-r requirements\.txt -r requirements-dev\.txt$/, "requirements.txt, requirements-dev.txt"],
    [{ "pyproject.toml": "[project]\nname = 'x'\ndependencies = ['attrs']\n\n[project.optional-dependencies]\ntest = ['pytest']\ndocs = ['sphinx']\n" }, /pip install .* -e '\.\[test\]'$/, "pyproject.toml declares dependencies"],
  ])("%#: sets up .venv from %s", async (files, install, evidence) => {
    const found = await detectTestRunner(repoWith(files));
    expect(found.kind).toBe("pytest");
    expect(found.install).toMatch(install);
    expect(found.evidence).toContain(`${evidence} installed into .venv by setup`);
    expect(found.python).toBe(".venv/bin/python");
    const text = renderStarter(found);
    const parsed = parsePolicy(text, ".github/ranex.yml");
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.policy.tests.command).toBe('.venv/bin/python -m pytest --junitxml="$RANEX_JUNIT" tests');
      expect(parsed.policy.tests.setup_network).toBe(true);
    }
  });

  it("leaves a repository with nothing to install to the machine's python3", async () => {
    const found = await detectTestRunner(repoWith({ "pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n" }));
    expect(found.install).toBeNull();
    expect(found.python).toBeUndefined();
  });

  it("reads which requirements files and extras a test run needs", () => {
    expect(requirementsFiles(["requirements-docs.txt", "test-requirements.txt", "requirements.txt", "README.md", "requirements_ci.txt"]))
      .toEqual(["requirements.txt", "requirements_ci.txt", "test-requirements.txt"]);
    expect(testExtras("[project.optional-dependencies]\ndocs = []\ntests = ['pytest']\ndev = ['ruff']\n[tool.x]\ntest = 1\n")).toEqual(["tests", "dev"]);
    // The same table in TOML's other forms (python-humanize/humanize writes dotted keys).
    expect(testExtras("[project]\nname = 'x'\noptional-dependencies.tests = ['freezegun']\noptional-dependencies.docs = []\n")).toEqual(["tests"]);
    expect(testExtras("project.optional-dependencies = { testing = ['pytest'], docs = [] }\n")).toEqual(["testing"]);
    expect(testExtras("[project\nbroken")).toEqual([]);
  });

  it("installs a project with only a test extra, and pretends a version when it is read from git tags", async () => {
    const found = await detectTestRunner(repoWith({ "pyproject.toml": "[build-system]\nrequires = ['hatchling', 'hatch-vcs']\n[project]\nname = 'x'\ndynamic = ['version']\noptional-dependencies.tests = ['freezegun']\n" }));
    expect(found.install).toMatch(/&& SETUPTOOLS_SCM_PRETEND_VERSION=0\.0\.0 \.venv\/bin\/pip install .* -e '\.\[tests\]'$/);
    const plain = await detectTestRunner(repoWith({ "pyproject.toml": "[project]\nname = 'x'\nversion = '1'\ndependencies = ['attrs']\n" }));
    expect(plain.install).not.toContain("PRETEND");
  });

  it("installs a project's dependency groups for tests (PEP 735), as pip words the shell keeps whole", async () => {
    // pypa/packaging's shape: no dependencies, no extras, a `test` group (hypothesis) that includes another.
    const pyproject = "[build-system]\nrequires = ['flit_core']\nbuild-backend = 'flit_core.buildapi'\n[project]\nname = 'x'\nversion = '1'\n" +
      "[dependency-groups]\ntest = ['hypothesis>=6.0.0', \"tomli; python_version<'3.11'\", {include-group = 'cov'}]\ncov = ['coverage[toml]>=7.2.0', 'hypothesis>=6.0.0']\ndocs = ['sphinx']\n";
    expect(testGroupRequirements(pyproject)).toEqual(["hypothesis>=6.0.0", "tomli; python_version<'3.11'", "coverage[toml]>=7.2.0"]);
    const found = await detectTestRunner(repoWith({ "pyproject.toml": pyproject }));
    expect(found.evidence).toContain("pyproject.toml's dependency groups for tests installed into .venv by setup");
    expect(found.python).toBe(".venv/bin/python");
    const install = found.install ?? "";
    const pip = install.slice(install.indexOf(".venv/bin/pip"));
    // The words pip gets, as sh splits them (printf in place of pip).
    const words = execFileSync("sh", ["-c", pip.replace(/^\.venv\/bin\/pip/, "printf '%s\\n'")], { encoding: "utf8" }).trim().split("\n");
    expect(words.slice(words.indexOf("-e"))).toEqual(["-e", ".", "hypothesis>=6.0.0", "tomli; python_version<'3.11'", "coverage[toml]>=7.2.0"]);
    // Groups alone, no project to build: the requirements only.
    const bare = await detectTestRunner(repoWith({ "pyproject.toml": "[dependency-groups]\ndev = ['attrs']\n" }));
    expect(bare.install).toMatch(/pip install [^&]* 'attrs'$/);
    expect(bare.install).not.toContain(" -e ");
  });

  it("reads tox's [testenv] setenv, leaving out substitutions, shell words and the gate's own variables", () => {
    const tox = "[testenv]\nsetenv =\n    A = 1\n    B=x/y\n    C = {envtmpdir}\n    PYTHONPATH = src\n    D = a b\ncommands = pytest\n[testenv:lint]\nsetenv =\n    E = 2\n";
    expect(toxSetenv(tox)).toEqual(["A=1", "B=x/y"]);
    expect(toxSetenv("[tox]\nenvlist = py\n")).toEqual([]);
  });
});
