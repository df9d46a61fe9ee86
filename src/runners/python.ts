// Shared by the pytest and unittest runners: both run through pytest, which reads unittest suites too.
import type { Detection } from "../policy/detect.js";
import { pythonDependencies } from "./python-deps.js";
import type { Found, RepoView } from "./types.js";

/** The command `ranex init` writes for a Python suite. */
export function pytestCommand(found: Detection): { command: string; note: string[] } {
  // Extends PYTHONPATH rather than replacing it: the gate's canary and test selection use it too.
  return {
    command: [
      ...found.env ?? [],
      ...found.pythonPath.length === 0 ? [] : [`PYTHONPATH="${found.pythonPath.join(":")}\${PYTHONPATH:+:$PYTHONPATH}"`],
      `${found.python ?? "python3"} -m pytest`, `--junitxml="$RANEX_JUNIT"`, ...found.testDirs,
    ].join(" "),
    note: [
      ...found.pythonPath.length === 0 ? [] : [`${found.pythonPath.join(", ")} holds the package and nothing installs it in the sandbox: the tests import it from there.`],
      ...(found.env ?? []).length === 0 ? [] : [`${found.env!.join(" ")}: tox.ini's [testenv] setenv, which the suite runs with there.`],
    ],
  };
}

/**
 * tox.ini's `[testenv] setenv` as `NAME=value` words: tox runs the suite with them, and tests read
 * them (tkem/cachetools' threading tests run only with THREADING_TESTS=1, so without it they were
 * skipped on every side and judged nothing). PYTHONPATH and PYTEST_ADDOPTS are left out, and values with tox substitutions (`{envtmpdir}`), file
 * references or characters a shell would read are left out.
 */
export function toxSetenv(toxIni: string): string[] {
  const section = /^\[testenv\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(toxIni)?.[1] ?? "";
  const block = /^setenv\s*=[ \t]*(.*(?:\n[ \t]+.*)*)/m.exec(section)?.[1] ?? "";
  return block.split("\n").map((l) => l.trim()).flatMap((line) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([\w.,:/@%+-]*)$/.exec(line);
    // PYTHONPATH and PYTEST_ADDOPTS carry the gate's canary and selection: the command never sets them.
    return m === null || /^(?:PYTHONPATH|PYTEST_ADDOPTS)$/.test(m[1]!) ? [] : [`${m[1]}=${m[2]}`];
  });
}

/**
 * `src/<package>/__init__.py` with no pytest `pythonpath` setting: the package is meant to be
 * installed (tox, pip install -e), which the sandbox never does, so the tests must find it in src.
 */
export async function srcLayout(repo: RepoView): Promise<string[]> {
  if (!repo.files.has("src")) return [];
  let isPackage = false;
  for (const name of await repo.list("src")) {
    if ((await repo.list(`src/${name}`)).includes("__init__.py")) isPackage = true;
  }
  if (!isPackage) return [];
  for (const config of ["pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini"]) {
    const text = repo.files.has(config) ? await repo.readText(config) : null;
    if (text !== null && /^\s*pythonpath\s*=/m.test(text)) return [];
  }
  return ["src"];
}

export const PYTHON_KEY_FILES = [
  "**/requirements*.txt", "**/constraints*.txt", "**/pyproject.toml", "**/poetry.lock", "**/Pipfile", "**/Pipfile.lock",
  "**/uv.lock", "**/pdm.lock", "**/setup.py", "**/setup.cfg",
] as const;

/** What a Python runner found, with the virtualenv setup when the tests need packages from the index. */
export async function pythonFound(repo: RepoView, evidence: string): Promise<Found> {
  const deps = await pythonDependencies(repo);
  const tox = repo.files.has("tox.ini") ? await repo.readText("tox.ini") : null;
  const env = tox === null ? [] : toxSetenv(tox);
  return {
    ...(env.length === 0 ? {} : { env }),
    evidence: deps === null ? evidence : `${evidence}; ${deps.evidence} installed into .venv by setup`,
    runnerDeclared: true, reporterDeclared: true, pythonPath: await srcLayout(repo),
    ...(deps === null ? {} : { install: deps.install, python: deps.python }),
  };
}
