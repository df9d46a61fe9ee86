import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

// Looks at a repository's working tree to find how its tests run, for `ranex init`: the test
// script, the runner's config files, the dependencies and lock files, the test folders. The
// starter it feeds says what it found; `ranex init` then tries it in the sandbox.

export type RunnerKind = "vitest" | "jest" | "mocha" | "node-test" | "pytest" | "unittest" | "none";

export interface Detection {
  kind: RunnerKind;
  /** What the guess rests on, for a comment in the starter (`package.json scripts.test runs vitest`). */
  evidence: string;
  /** Dependency install command for Node projects, chosen by lock file; null when nothing to install. */
  install: string | null;
  /** The runner's package is declared by the repository (else it must come from the toolchain). */
  runnerDeclared: boolean;
  /** The JUnit reporter the runner needs (jest-junit, mocha-junit-reporter) is declared. */
  reporterDeclared: boolean;
  /** Folders holding the tests (pytest is given them when its config names no testpaths). */
  testDirs: string[];
  /** Folders the Python tests import from that nothing installs in the sandbox (a src layout). */
  pythonPath: string[];
  /** Extra checks worth proposing: name -> command. `ranex init` keeps only those passing on HEAD. */
  checks: { name: string; run: string }[];
}

export interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  jest?: unknown;
  mocha?: unknown;
}

/** The JUnit reporter package each Node runner needs, when its own output is not JUnit with files. */
export const REPORTER_PACKAGE: Partial<Record<RunnerKind, string>> = { jest: "jest-junit", mocha: "mocha-junit-reporter" };

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return null;
  }
}

async function list(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

export async function readPackageJson(dir: string): Promise<PackageJson | null> {
  const text = await readText(join(dir, "package.json"));
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as PackageJson) : null;
  } catch {
    return null; // An unreadable package.json is no evidence of a runner; fall through to Python.
  }
}

export async function detectTestRunner(dir: string): Promise<Detection> {
  const files = new Set(await list(dir));
  const pkg = await readPackageJson(dir);
  const base = { install: null, runnerDeclared: false, reporterDeclared: false, testDirs: await testDirs(dir, files), pythonPath: [], checks: [] };
  if (pkg !== null) {
    const node = nodeRunner(pkg, files);
    if (node !== null) {
      const reporter = REPORTER_PACKAGE[node.kind];
      return {
        ...base, ...node, install: installCommand(pkg, files),
        runnerDeclared: node.kind === "node-test" || hasDep(pkg, node.kind),
        reporterDeclared: reporter === undefined || hasDep(pkg, reporter),
        checks: nodeChecks(pkg, files),
      };
    }
  }
  const python = { ...base, runnerDeclared: true, reporterDeclared: true, pythonPath: await srcLayout(dir, files) };
  const pytest = await pytestEvidence(dir, files);
  if (pytest !== null) return { ...python, kind: "pytest", evidence: pytest };
  const unittest = await unittestEvidence(dir, base.testDirs, files);
  if (unittest !== null) return { ...python, kind: "unittest", evidence: unittest };
  return { ...base, kind: "none", evidence: "no test runner found (looked for package.json scripts and dependencies, vitest/jest/mocha configs, node --test, pytest and unittest files)" };
}

function hasDep(pkg: PackageJson, name: string): boolean {
  return name in (pkg.dependencies ?? {}) || name in (pkg.devDependencies ?? {});
}

const CONFIG_FILES: [RegExp, RunnerKind][] = [
  [/^vitest\.config\.[cm]?[jt]s$/, "vitest"],
  [/^vitest\.workspace\.[cm]?[jt]s$/, "vitest"],
  [/^jest\.config\.(?:[cm]?[jt]s|json)$/, "jest"],
  [/^\.mocharc(?:\.(?:[cm]?js|json|jsonc|ya?ml))?$/, "mocha"],
];

function nodeRunner(pkg: PackageJson, files: Set<string>): { kind: RunnerKind; evidence: string } | null {
  const test = pkg.scripts?.test ?? "";
  // The test script says what the owner runs: it wins over configs and dependencies.
  const scripted: [RegExp, RunnerKind][] = [[/\bvitest\b/, "vitest"], [/\bjest\b/, "jest"], [/\bmocha\b/, "mocha"], [/\bnode\b[^&|;]*--test\b/, "node-test"]];
  for (const [pattern, kind] of scripted) if (pattern.test(test)) return { kind, evidence: `package.json scripts.test runs ${kind === "node-test" ? "node --test" : kind}` };
  for (const [pattern, kind] of CONFIG_FILES) {
    const file = [...files].find((f) => pattern.test(f));
    if (file !== undefined) return { kind, evidence: `${file} configures ${kind}` };
  }
  if (pkg.jest !== undefined) return { kind: "jest", evidence: "package.json has a jest section" };
  if (pkg.mocha !== undefined) return { kind: "mocha", evidence: "package.json has a mocha section" };
  for (const kind of ["vitest", "jest", "mocha"] as const) if (hasDep(pkg, kind)) return { kind, evidence: `package.json depends on ${kind}` };
  if (test !== "" && !/no test specified/.test(test)) {
    return { kind: "node-test", evidence: `package.json scripts.test is '${test}', not a runner this knows; node --test is a guess` };
  }
  return null;
}

function installCommand(pkg: PackageJson, files: Set<string>): string | null {
  if (files.has("pnpm-lock.yaml")) return "pnpm install --frozen-lockfile --offline";
  if (files.has("yarn.lock")) return "yarn install --frozen-lockfile";
  // No audit or funding calls: they reach the network for nothing the judgment needs.
  if (files.has("package-lock.json") || files.has("npm-shrinkwrap.json")) return "npm ci --no-audit --no-fund";
  const declared = Object.keys(pkg.dependencies ?? {}).length + Object.keys(pkg.devDependencies ?? {}).length;
  return declared > 0 ? "npm install --no-audit --no-fund" : null;
}

function nodeChecks(pkg: PackageJson, files: Set<string>): { name: string; run: string }[] {
  const checks: { name: string; run: string }[] = [];
  if (pkg.scripts?.typecheck !== undefined) checks.push({ name: "typecheck", run: "npm run typecheck" });
  else if (files.has("tsconfig.json")) checks.push({ name: "typecheck", run: "npx --no-install tsc --noEmit" });
  if (pkg.scripts?.lint !== undefined) checks.push({ name: "lint", run: "npm run lint" });
  return checks;
}

async function testDirs(dir: string, files: Set<string>): Promise<string[]> {
  const found: string[] = [];
  for (const folder of ["tests", "test", "spec", "__tests__"]) if (files.has(folder) && (await list(join(dir, folder))).length > 0) found.push(folder);
  return found;
}

async function pytestEvidence(dir: string, files: Set<string>): Promise<string | null> {
  if (files.has("pytest.ini")) return "pytest.ini";
  if (files.has("conftest.py")) return "conftest.py";
  const pyproject = files.has("pyproject.toml") ? await readText(join(dir, "pyproject.toml")) : null;
  if (pyproject !== null && /\[tool\.pytest|\bpytest\b/.test(pyproject)) return "pyproject.toml mentions pytest";
  const setupCfg = files.has("setup.cfg") ? await readText(join(dir, "setup.cfg")) : null;
  if (setupCfg !== null && /\[tool:pytest\]/.test(setupCfg)) return "setup.cfg has [tool:pytest]";
  const toxIni = files.has("tox.ini") ? await readText(join(dir, "tox.ini")) : null;
  if (toxIni !== null && /\[pytest\]/.test(toxIni)) return "tox.ini has [pytest]";
  for (const name of ["requirements-dev.txt", "requirements_dev.txt", "requirements-test.txt", "dev-requirements.txt"]) {
    const text = files.has(name) ? await readText(join(dir, name)) : null;
    if (text !== null && /^pytest\b/m.test(text)) return `${name} lists pytest`;
  }
  for (const folder of ["tests", "test"]) {
    const py = (await list(join(dir, folder))).filter((f) => /^test_.*\.py$|_test\.py$/.test(f));
    for (const file of py) {
      const text = await readText(join(dir, folder, file));
      // A unittest suite is run by pytest too, but say which it is.
      if (text !== null && !/^\s*(?:import unittest|from unittest\b)/m.test(text)) return `${folder}/${file} is a pytest test file`;
    }
  }
  if ([...files].some((f) => /^test_.*\.py$/.test(f))) return "test_*.py files at the top level";
  return null;
}

async function unittestEvidence(dir: string, folders: string[], files: Set<string>): Promise<string | null> {
  for (const folder of [...folders, "."]) {
    const names = folder === "." ? [...files] : await list(join(dir, folder));
    for (const file of names.filter((f) => /\.py$/.test(f))) {
      const text = await readText(join(dir, folder, file));
      if (text !== null && /unittest\.TestCase|from unittest import TestCase/.test(text)) return `${folder === "." ? file : `${folder}/${file}`} holds unittest.TestCase tests (run through pytest)`;
    }
  }
  return null;
}

/**
 * `src/<package>/__init__.py` with no pytest `pythonpath` setting: the package is meant to be
 * installed (tox, pip install -e), which the sandbox never does, so the tests must find it in src.
 */
async function srcLayout(dir: string, files: Set<string>): Promise<string[]> {
  if (!files.has("src")) return [];
  let isPackage = false;
  for (const name of await list(join(dir, "src"))) {
    if ((await list(join(dir, "src", name))).includes("__init__.py")) isPackage = true;
  }
  if (!isPackage) return [];
  for (const config of ["pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini"]) {
    const text = files.has(config) ? await readText(join(dir, config)) : null;
    if (text !== null && /^\s*pythonpath\s*=/m.test(text)) return [];
  }
  return ["src"];
}
