// A repository whose setup "installs" into node_modules (no network: it copies requirements.txt
// there) and whose tests read what it installed: the shape the dependency cache is tested on.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { TestRepo } from "./git-repo.js";

export const PYTEST = "python3 -m pytest -q -p no:cacheprovider --continue-on-collection-errors --junitxml=\"$RANEX_JUNIT\" tests";
export const INSTALL = "mkdir -p node_modules/x && cat requirements.txt > node_modules/x/value.txt";
export const READ_VALUE = "def value():\n    with open('node_modules/x/value.txt') as f:\n        return f.read().strip()\n";

export function depsPolicy(setup: string = INSTALL, timeout = 60): string {
  return [
    "version: 1",
    "tests:",
    `  command: ${JSON.stringify(PYTEST)}`,
    `  setup: ${JSON.stringify(setup)}`,
    `  timeout: ${timeout}`,
    "require: [tests.regression, tests.red_green]",
  ].join("\n") + "\n";
}

/** A base whose tests read what setup installed, and a head `honest` whose new test reads it too. */
export function depsRepo(setup: string = INSTALL, timeout = 60): TestRepo {
  const repo = TestRepo.init();
  repo.commit({
    ".github/ranex.yml": depsPolicy(setup, timeout),
    "requirements.txt": "7\n",
    "src/__init__.py": "",
    "src/value.py": READ_VALUE,
    "tests/test_value.py": "from src.value import value\n\ndef test_value():\n    assert value() == '7'\n",
  }, "base");
  repo.branch("honest");
  repo.commit({
    "src/value.py": `${READ_VALUE}\ndef doubled():\n    return int(value()) * 2\n`,
    "tests/test_doubled.py": "from src.value import doubled\n\ndef test_doubled():\n    assert doubled() == 14\n",
  }, "honest");
  repo.checkout("main");
  return repo;
}

/** The entries of the dependency cache under a data dir. */
export const cacheEntries = (dataDir: string): string[] =>
  existsSync(join(dataDir, "deps")) ? readdirSync(join(dataDir, "deps")).filter((n) => !n.startsWith(".")) : [];
