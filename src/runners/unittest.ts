// unittest suites: found by their TestCase classes, run through pytest (which reads them), so every
// run-time part (canary, selection, report) is pytest's; this module only detects them for init.
import { pytestCommand, PYTHON_KEY_FILES, pythonFound } from "./python.js";
import { pytest } from "./pytest.js";
import type { Found, RepoView, Runner } from "./types.js";

const TEST_CASE = /unittest\.TestCase|from unittest import TestCase/;
/** The files pytest collects from a folder when its config says nothing (`python_files`). */
const PYTEST_COLLECTS = /^test_.*\.py$|_test\.py$/;
/**
 * Top-level suites pytest does not collect by name: `tests.py`, `test.py`, `tests_x.py`. Not any
 * file with a TestCase: a script such as `ext_tests.py` that runs its own suite from `sys.argv` at
 * import would fail to load under pytest.
 */
const TOP_LEVEL_SUITE = /^tests?(?:_.*)?\.py$/;

async function evidence(repo: RepoView): Promise<string | null> {
  for (const folder of [...repo.testDirs, "."]) {
    const names = folder === "." ? [...repo.files] : await repo.list(folder);
    for (const file of names.filter((f) => /\.py$/.test(f))) {
      const text = await repo.readText(folder === "." ? file : `${folder}/${file}`);
      if (text !== null && TEST_CASE.test(text)) return `${folder === "." ? file : `${folder}/${file}`} holds unittest.TestCase tests (run through pytest)`;
    }
  }
  return null;
}

/**
 * TestCase files at the top level that pytest would not collect by itself (`tests.py`, run by
 * `python tests.py` or `python -m unittest tests`): pytest collects a file it is given by name
 * whatever its name, and the default tests.files would not freeze them either, so both name them.
 */
async function topLevelSuites(repo: RepoView): Promise<string[]> {
  for (const config of ["pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini"]) {
    const text = repo.files.has(config) ? await repo.readText(config) : null;
    if (text !== null && /^\s*python_files\s*=/m.test(text)) return [];
  }
  const suites: string[] = [];
  for (const file of [...repo.files].filter((f) => TOP_LEVEL_SUITE.test(f) && !PYTEST_COLLECTS.test(f)).sort()) {
    const text = await repo.readText(file);
    if (text !== null && TEST_CASE.test(text)) suites.push(file);
  }
  return suites;
}

export const unittest: Runner = {
  name: "unittest",
  // Its command is pytest's: the pytest module answers for it at run time.
  runs: () => false,
  async detect(repo) {
    const found = await evidence(repo);
    if (found === null) return null;
    const detected: Found = await pythonFound(repo, found);
    const suites = await topLevelSuites(repo);
    return suites.length === 0 ? detected : { ...detected, testDirs: [...repo.testDirs, ...suites], testFiles: suites };
  },
  command: pytestCommand,
  canary: pytest.canary,
  select: pytest.select,
  canSelect: pytest.canSelect,
  repeatNote: pytest.repeatNote,
  deps: { keyFiles: PYTHON_KEY_FILES },
};
