// unittest suites: found by their TestCase classes, run through pytest (which reads them), so every
// run-time part (canary, selection, report) is pytest's; this module only detects them for init.
import { pytestCommand, PYTHON_KEY_FILES, pythonFound } from "./python.js";
import { pytest } from "./pytest.js";
import type { RepoView, Runner } from "./types.js";

async function evidence(repo: RepoView): Promise<string | null> {
  for (const folder of [...repo.testDirs, "."]) {
    const names = folder === "." ? [...repo.files] : await repo.list(folder);
    for (const file of names.filter((f) => /\.py$/.test(f))) {
      const text = await repo.readText(folder === "." ? file : `${folder}/${file}`);
      if (text !== null && /unittest\.TestCase|from unittest import TestCase/.test(text)) return `${folder === "." ? file : `${folder}/${file}`} holds unittest.TestCase tests (run through pytest)`;
    }
  }
  return null;
}

export const unittest: Runner = {
  name: "unittest",
  // Its command is pytest's: the pytest module answers for it at run time.
  runs: () => false,
  async detect(repo) {
    const found = await evidence(repo);
    return found === null ? null : pythonFound(repo, found);
  },
  command: pytestCommand,
  canary: pytest.canary,
  select: pytest.select,
  canSelect: pytest.canSelect,
  repeatNote: pytest.repeatNote,
  deps: { keyFiles: PYTHON_KEY_FILES },
};
