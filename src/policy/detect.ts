import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { RUNNERS } from "../runners/index.js";
import type { RepoView, RunnerName } from "../runners/types.js";

// Looks at a repository's working tree to find how its tests run, for `ranex init`: the test
// script, the runner's config files, the dependencies and lock files, the test folders. The
// starter it feeds says what it found; `ranex init` then tries it in the sandbox.

export type RunnerKind = RunnerName | "none";

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
  /** `toolchain.path` entries the runner needs (a compiler outside the sandbox's PATH). */
  toolchain?: string[];
  /** Globs added to `tests.files` beyond the defaults (Maven's src/test/**). */
  testFiles?: string[];
  /** The Python interpreter the tests run with: `.venv/bin/python` when setup makes a virtualenv (src/runners/python-deps.ts). */
  python?: string;
}

export interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  jest?: unknown;
  mocha?: unknown;
}

/** The JUnit reporter package each Node runner needs, when its own output is not JUnit with files. */
export { REPORTER_PACKAGE } from "../runners/node-package.js";

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

/**
 * Asks each runner of the registry, in order, whether the repository uses it (src/runners). The
 * first that answers decides; what it does not say keeps the defaults below.
 */
export async function detectTestRunner(dir: string): Promise<Detection> {
  const files = new Set(await list(dir));
  const pkg = await readPackageJson(dir);
  const repo: RepoView = {
    dir, files, pkg, testDirs: await testDirs(dir, files),
    readText: (rel) => readText(join(dir, rel)), list: (rel) => list(join(dir, rel)),
  };
  const base = { install: null, runnerDeclared: false, reporterDeclared: false, testDirs: repo.testDirs, pythonPath: [], checks: [] };
  for (const runner of RUNNERS) {
    const found = await runner.detect(repo);
    if (found !== null) return { ...base, ...found, kind: runner.name };
  }
  return { ...base, kind: "none", evidence: `no test runner found (looked for ${NONE_LOOKED_FOR})` };
}

const NONE_LOOKED_FOR = "package.json scripts and dependencies, vitest/jest/mocha configs, node --test, pytest and unittest files";

async function testDirs(dir: string, files: Set<string>): Promise<string[]> {
  const found: string[] = [];
  for (const folder of ["tests", "test", "spec", "__tests__"]) if (files.has(folder) && (await list(join(dir, folder))).length > 0) found.push(folder);
  return found;
}
