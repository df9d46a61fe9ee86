// pytest: JUnit through --junitxml; the selection is a plugin of the gate's own, found through
// PYTHONPATH and loaded with `-p` (PYTEST_ADDOPTS); the canaries are a test file beside the tree's own.
import { pythonCanaries } from "./canary-python.js";
import { REPORTERS_DIR, SANDBOX_REPORTERS_DIR } from "../measure/reporters.js";
import { PYTHON_KEY_FILES, pytestCommand, pythonFound } from "./python.js";
import type { RepoView, Runner } from "./types.js";

/** Whether a test command runs pytest (as `pytest`, `py.test` or `python -m pytest`). */
export function runsPytest(command: string): boolean {
  return /(?:^|[\s/;&|(])(?:py\.test|pytest)(?:\s|$)|-m\s+pytest\b/.test(command);
}

async function evidence(repo: RepoView): Promise<string | null> {
  const { files } = repo;
  if (files.has("pytest.ini")) return "pytest.ini";
  if (files.has("conftest.py")) return "conftest.py";
  const pyproject = files.has("pyproject.toml") ? await repo.readText("pyproject.toml") : null;
  if (pyproject !== null && /\[tool\.pytest|\bpytest\b/.test(pyproject)) return "pyproject.toml mentions pytest";
  const setupCfg = files.has("setup.cfg") ? await repo.readText("setup.cfg") : null;
  if (setupCfg !== null && /\[tool:pytest\]/.test(setupCfg)) return "setup.cfg has [tool:pytest]";
  const toxIni = files.has("tox.ini") ? await repo.readText("tox.ini") : null;
  if (toxIni !== null && /\[pytest\]/.test(toxIni)) return "tox.ini has [pytest]";
  for (const name of ["requirements-dev.txt", "requirements_dev.txt", "requirements-test.txt", "dev-requirements.txt"]) {
    const text = files.has(name) ? await repo.readText(name) : null;
    if (text !== null && /^pytest\b/m.test(text)) return `${name} lists pytest`;
  }
  for (const folder of ["tests", "test"]) {
    const py = (await repo.list(folder)).filter((f) => /^test_.*\.py$|_test\.py$/.test(f));
    for (const file of py) {
      const text = await repo.readText(`${folder}/${file}`);
      // A unittest suite is run by pytest too, but say which it is.
      if (text !== null && !/^\s*(?:import unittest|from unittest\b)/m.test(text)) return `${folder}/${file} is a pytest test file`;
    }
  }
  if ([...files].some((f) => /^test_.*\.py$/.test(f))) return "test_*.py files at the top level";
  return null;
}

export const pytest: Runner = {
  name: "pytest",
  runs: runsPytest,
  async detect(repo) {
    const found = await evidence(repo);
    return found === null ? null : pythonFound(repo, found);
  },
  command: pytestCommand,
  canary: pythonCanaries,
  select({ command, backend, common }) {
    const dir = `${backend === "bwrap" ? SANDBOX_REPORTERS_DIR : REPORTERS_DIR}/python`;
    return { command, env: { ...common, PYTEST_ADDOPTS: "-p ranex_select", PYTHONPATH: dir }, how: "pytest plugin" };
  },
  // The PR's own runs: only the items of these files, among those the command collects (its paths
  // and options decide what is collected; a file outside them gives no item and proves nothing).
  selectFiles({ command, files, backend, common }) {
    if (files.some((f) => !f.endsWith(".py"))) return null;
    const dir = `${backend === "bwrap" ? SANDBOX_REPORTERS_DIR : REPORTERS_DIR}/python`;
    return { command, env: { ...common, RANEX_SELECT_BY: "file", PYTEST_ADDOPTS: "-p ranex_select", PYTHONPATH: dir }, how: "pytest plugin, by file" };
  },
  canSelect: () => true,
  repeatNote: "pytest repeats only the targets (the gate selects them).",
  deps: { keyFiles: PYTHON_KEY_FILES },
};
