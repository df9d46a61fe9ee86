import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

// Looks at a repository's working tree to guess how its tests run, for `ranex init`. A guess only:
// the starter it feeds says what it found, and the owner reviews the file before committing it.

export type RunnerKind = "vitest" | "jest" | "node-test" | "pytest" | "none";

export interface Detection {
  kind: RunnerKind;
  /** What the guess rests on, for a comment in the starter (`package.json scripts.test runs vitest`). */
  evidence: string;
  /** Dependency install command for Node projects, chosen by lock file. */
  install: string | null;
  /** `jest-junit` is listed, so jest can write JUnit without extra setup. */
  jestJunit: boolean;
  /** Extra checks worth proposing: name -> command. */
  checks: { name: string; run: string }[];
}

interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

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

export async function detectTestRunner(dir: string): Promise<Detection> {
  const files = new Set(await list(dir));
  const pkgText = files.has("package.json") ? await readText(join(dir, "package.json")) : null;
  let pkg: PackageJson | null = null;
  if (pkgText !== null) {
    try {
      pkg = JSON.parse(pkgText) as PackageJson;
    } catch {
      pkg = null; // An unreadable package.json is no evidence of a runner; fall through to pytest.
    }
  }
  const base = { install: null, jestJunit: false, checks: [] };
  if (pkg !== null) {
    const node = nodeRunner(pkg);
    if (node !== null) {
      return { ...base, ...node, install: installCommand(files), jestJunit: hasDep(pkg, "jest-junit"), checks: nodeChecks(pkg, files) };
    }
  }
  const pytest = await pytestEvidence(dir, files);
  if (pytest !== null) return { ...base, kind: "pytest", evidence: pytest };
  return { ...base, kind: "none", evidence: "no test runner found (looked for package.json test scripts, vitest, jest, node --test, pytest)" };
}

function hasDep(pkg: PackageJson, name: string): boolean {
  return name in (pkg.dependencies ?? {}) || name in (pkg.devDependencies ?? {});
}

function nodeRunner(pkg: PackageJson): { kind: RunnerKind; evidence: string } | null {
  const test = pkg.scripts?.test ?? "";
  if (/\bvitest\b/.test(test)) return { kind: "vitest", evidence: "package.json scripts.test runs vitest" };
  if (/\bjest\b/.test(test)) return { kind: "jest", evidence: "package.json scripts.test runs jest" };
  if (/\bnode\b.*--test\b/.test(test)) return { kind: "node-test", evidence: "package.json scripts.test runs node --test" };
  if (hasDep(pkg, "vitest")) return { kind: "vitest", evidence: "package.json depends on vitest" };
  if (hasDep(pkg, "jest")) return { kind: "jest", evidence: "package.json depends on jest" };
  if (test !== "" && !/no test specified/.test(test)) {
    return { kind: "node-test", evidence: `package.json scripts.test is '${test}', not a runner this knows; node --test is a guess` };
  }
  return null;
}

function installCommand(files: Set<string>): string {
  if (files.has("pnpm-lock.yaml")) return "pnpm install --frozen-lockfile";
  if (files.has("yarn.lock")) return "yarn install --frozen-lockfile";
  if (files.has("package-lock.json") || files.has("npm-shrinkwrap.json")) return "npm ci";
  return "npm install";
}

function nodeChecks(pkg: PackageJson, files: Set<string>): { name: string; run: string }[] {
  const checks: { name: string; run: string }[] = [];
  if (pkg.scripts?.typecheck !== undefined) checks.push({ name: "typecheck", run: "npm run typecheck" });
  else if (files.has("tsconfig.json")) checks.push({ name: "typecheck", run: "npx tsc --noEmit" });
  if (pkg.scripts?.lint !== undefined) checks.push({ name: "lint", run: "npm run lint" });
  return checks;
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
  for (const folder of ["tests", "test"]) {
    const py = (await list(join(dir, folder))).filter((f) => /^test_.*\.py$|_test\.py$/.test(f));
    if (py.length > 0) return `${folder}/ holds ${py[0]}`;
  }
  if ([...files].some((f) => /^test_.*\.py$/.test(f))) return "test_*.py files at the top level";
  return null;
}
