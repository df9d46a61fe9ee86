// Python dependencies for `ranex init` (issue 22): a virtualenv at `.venv` in the tree, filled from
// the package index by the policy's setup, which is the only step with network. The setup runs once
// per dependency key (the lock and requirements files, src/measure/deps/key.ts) on a clean copy of
// the base; `.venv` is what it creates, so it is cached and bound read-only over every run's tree.
// The tree is at the same path in every run, so the venv's absolute paths (its scripts' shebangs,
// an editable install's .pth) hold in each of them.
//
// What is read, first match wins:
//   uv.lock      uv sync --frozen                (uv itself installed from the index into /tmp)
//   poetry.lock  poetry install --no-root        (likewise poetry; the venv in the project)
//   pdm.lock     pdm sync                        (likewise pdm; the venv in the project)
//   requirements*.txt (the main one and those for tests/dev) -> pip install -r each
//   pyproject.toml / setup.py / setup.cfg with dependencies -> pip install -e .[test extras]
//   pyproject.toml's [dependency-groups] for tests (PEP 735) -> their requirements, with the above
// The venv made by pip sees the machine's site-packages (--system-site-packages): Debian's pytest
// serves when the repository lists none; a pytest it lists wins.
import { parse as parseToml } from "smol-toml";
import { DEBIAN_CA_STORE } from "./ca-store.js";
import type { RepoView } from "./types.js";

export interface PythonDeps {
  /** The setup command. */
  install: string;
  /** The interpreter the tests run with. */
  python: string;
  /** What it rests on, for the starter's comment. */
  evidence: string;
}

export const VENV_PYTHON = ".venv/bin/python";
const PIP = ".venv/bin/pip install --disable-pip-version-check --no-input --quiet";
const VENV = "python3 -m venv --system-site-packages .venv";
/**
 * A tool from the index in a venv of its own in the run's scratch /tmp, never in the tree. `spec` is
 * what pip installs: pdm's own dependencies are pinned only through its `locked` extra (pdm 2.29.4
 * asks for `hishel>=1.4.0`, and hishel 2.0 removed what pdm imports: found on frostming/marko).
 */
const tool = (name: string, spec: string = name): string =>
  `python3 -m venv /tmp/ranex-${name} && /tmp/ranex-${name}/bin/pip install --disable-pip-version-check --no-input --quiet ${spec}`;

/** Requirements files that a test run needs: the main one and those for tests or development. */
export function requirementsFiles(files: Iterable<string>): string[] {
  return [...files]
    .filter((f) => /^(?:requirements|[\w-]*requirements)[\w.-]*\.txt$/i.test(f))
    .filter((f) => /^requirements\.txt$/i.test(f) || /test|dev|ci/i.test(f))
    .sort((a, b) => (a === "requirements.txt" ? -1 : b === "requirements.txt" ? 1 : a.localeCompare(b)));
}

/**
 * pyproject.toml's `[project]` table, read by a TOML parser: the same table is written in several
 * forms (`[project.optional-dependencies]`, dotted keys `optional-dependencies.tests = [...]` under
 * `[project]`, inline tables), and a pattern for one form missed the others (python-humanize/humanize
 * writes dotted keys, so init installed nothing and every test failed to import). A file that does
 * not parse gives nothing: pip would refuse it too.
 */
function projectTable(pyproject: string): Record<string, unknown> {
  return topTable(pyproject, "project");
}

function topTable(pyproject: string, name: string): Record<string, unknown> {
  try {
    const table = parseToml(pyproject)[name];
    return typeof table === "object" && table !== null && !Array.isArray(table) ? (table as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const TEST_GROUP = /^(?:test|tests|testing|dev)$/i;

/**
 * The requirements of pyproject.toml's `[dependency-groups]` (PEP 735) that tests are likely to need,
 * `{include-group = "…"}` entries expanded, in order, each once. pypa/packaging declares hypothesis
 * and pretend only in its `test` group (no extra, no requirements file): init installed nothing and
 * 20 test files failed to import. pip reads groups itself only from 25.1 (`--group`), and the venv's
 * pip is the machine's python's (23 here), so init lists the requirements instead.
 */
export function testGroupRequirements(pyproject: string): string[] {
  const groups = topTable(pyproject, "dependency-groups");
  const out: string[] = [];
  const seen = new Set<string>();
  const expand = (name: string): void => {
    if (seen.has(name)) return; // a cycle is pip's error to report; listing it once is enough here
    seen.add(name);
    const entries = groups[name];
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      if (typeof entry === "string") {
        if (!out.includes(entry)) out.push(entry);
      } else if (typeof entry === "object" && entry !== null) {
        const included = (entry as Record<string, unknown>)["include-group"];
        if (typeof included === "string") expand(included);
      }
    }
  };
  for (const name of Object.keys(groups).filter((n) => TEST_GROUP.test(n))) expand(name);
  return out;
}

/** A word for sh: requirements carry `;`, `<`, `>`, `[` and quotes (`tomli; python_version<'3.11'`). */
function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Extras of pyproject.toml's `project.optional-dependencies` that tests are likely to need. */
export function testExtras(pyproject: string): string[] {
  const extras = projectTable(pyproject)["optional-dependencies"];
  if (typeof extras !== "object" || extras === null) return [];
  return Object.keys(extras).filter((n) => TEST_GROUP.test(n));
}

/** Whether pyproject.toml, setup.py or setup.cfg declares packages to install. */
function declaresDependencies(pyproject: string | null, setupPy: string | null, setupCfg: string | null): boolean {
  if (pyproject !== null) {
    const project = projectTable(pyproject);
    const deps = project["dependencies"];
    const extras = project["optional-dependencies"];
    if (Array.isArray(deps) && deps.length > 0) return true;
    if (typeof extras === "object" && extras !== null && Object.keys(extras).length > 0) return true;
  }
  if (setupPy !== null && /install_requires\s*=\s*\[\s*["']/.test(setupPy)) return true;
  return setupCfg !== null && /^install_requires\s*=\s*\S/m.test(setupCfg);
}

/**
 * The environment a build of the project itself needs when its version comes from git tags
 * (setuptools-scm, hatch-vcs, pdm-backend's scm source): the setup's tree is a copy of the base
 * without `.git`, so the build stopped at "unable to detect version" and nothing was installed
 * (found on python-humanize/humanize, hatch-vcs). A pretended version lets it build; the version
 * file such a build writes into the tree is kept with the setup's entries.
 */
function scmVersionEnv(...texts: (string | null)[]): string {
  const text = texts.join("\n");
  const env: string[] = [];
  if (/setuptools[-_]scm|hatch[-_]vcs/i.test(text)) env.push("SETUPTOOLS_SCM_PRETEND_VERSION=0.0.0");
  if (/pdm[-_]backend/i.test(text) && /source\s*=\s*["']scm["']/.test(text)) env.push("PDM_BUILD_SCM_VERSION=0.0.0");
  return env.map((e) => `${e} `).join("");
}

export async function pythonDependencies(repo: RepoView): Promise<PythonDeps | null> {
  const { files } = repo;
  const pyproject = files.has("pyproject.toml") ? await repo.readText("pyproject.toml") : null;
  const setupPy = files.has("setup.py") ? await repo.readText("setup.py") : null;
  const setupCfg = files.has("setup.cfg") ? await repo.readText("setup.cfg") : null;
  const scm = scmVersionEnv(pyproject, setupPy, setupCfg);
  if (files.has("uv.lock")) {
    return {
      // uv sync builds and installs the project itself too.
      install: `${tool("uv")} && ${scm}UV_PROJECT_ENVIRONMENT=.venv UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never UV_SYSTEM_CERTS=true UV_NATIVE_TLS=true /tmp/ranex-uv/bin/uv sync --frozen --all-extras`,
      python: VENV_PYTHON, evidence: "uv.lock",
    };
  }
  if (files.has("poetry.lock")) {
    return {
      // poetry verifies TLS with certifi's bundle, not the machine's store (pip reads it from pip.conf,
      // uv from UV_SYSTEM_CERTS): behind a registry proxy with its own CA every download failed
      // ("CERTIFICATE_VERIFY_FAILED", found on python-poetry/tomlkit). Debian's store, where there is one.
      install: `${tool("poetry")} && { [ ! -f ${DEBIAN_CA_STORE} ] || export REQUESTS_CA_BUNDLE=${DEBIAN_CA_STORE}; } && POETRY_VIRTUALENVS_IN_PROJECT=true /tmp/ranex-poetry/bin/poetry install --no-root --no-interaction --all-extras`,
      python: VENV_PYTHON, evidence: "poetry.lock",
    };
  }
  if (files.has("pdm.lock")) {
    return {
      install: `${tool("pdm", '"pdm[locked]"')} && PDM_VENV_IN_PROJECT=true PDM_CHECK_UPDATE=false /tmp/ranex-pdm/bin/pdm sync --no-self -G :all`,
      python: VENV_PYTHON, evidence: "pdm.lock",
    };
  }
  const requirements = requirementsFiles(files);
  if (requirements.length > 0) {
    return { install: `${VENV} && ${PIP} ${requirements.map((f) => `-r ${f}`).join(" ")}`, python: VENV_PYTHON, evidence: requirements.join(", ") };
  }
  const groups = pyproject === null ? [] : testGroupRequirements(pyproject);
  if (declaresDependencies(pyproject, setupPy, setupCfg) || groups.length > 0) {
    const extras = pyproject === null ? [] : testExtras(pyproject);
    const target = extras.length === 0 ? "." : `'.[${extras.join(",")}]'`;
    // The project itself is installed when it is one (a build backend, [project], setup.py/cfg); a
    // pyproject.toml holding only dependency groups has nothing pip could build.
    const isProject = setupPy !== null || setupCfg !== null || (pyproject !== null && (Object.keys(projectTable(pyproject)).length > 0 || Object.keys(topTable(pyproject, "build-system")).length > 0));
    const words = [...(isProject ? ["-e", target] : []), ...groups.map(shellWord)];
    const evidence = groups.length > 0
      ? "pyproject.toml's dependency groups for tests"
      : pyproject !== null ? "pyproject.toml declares dependencies" : "setup.py/setup.cfg declare dependencies";
    return { install: `${VENV} && ${scm}${PIP} ${words.join(" ")}`, python: VENV_PYTHON, evidence };
  }
  return null;
}
