import { readdir, readFile, stat } from "node:fs/promises";
import { execa } from "execa";
import { join } from "node:path";
import { RUNNERS } from "../runners/index.js";
import { expandedTest, unsupportedRunner } from "../runners/scripts.js";
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
  /** Why the install is not the one the repository's own tools would run, for a comment above it. */
  installNote?: string;
  /** The runner's package is declared by the repository (else it must come from the toolchain). */
  runnerDeclared: boolean;
  /** The version range package.json gives the runner's package (`^4.0.0`), when it declares one. */
  runnerRange?: string;
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
  /**
   * Steps the repository's test script runs before the runner (`npm run generate`), kept as a
   * prefix of the test command (src/runners/scripts.ts).
   */
  preSteps?: string[];
  /** The test script as npm runs it (`npm run` followed): the TAP runners keep the files and options it gives them. */
  testScript?: string;
  /** `NAME=value` assignments the repository's own test environment sets (tox's `[testenv] setenv`), put before the command. */
  env?: string[];
  /** The Python interpreter the tests run with: `.venv/bin/python` when setup makes a virtualenv (src/runners/python-deps.ts). */
  python?: string;
  /** The launcher the repository commits for its runner (`./gradlew`), run in place of the machine's; `cargo test --workspace` for a workspace whose root is a package. */
  launcher?: string;
  /** Where the runner's own configuration puts its report (nextest's `[profile.default.junit] path`). */
  reportPath?: string;
  /** Host folders the runs must see read-only (`sandbox.readonly`: Debian's /etc/maven, a JDK's /etc links). */
  sandboxReadonly?: string[];
  /** `sandbox.scratch_mb` the setup needs beyond the default, and why (yarn 1's cache of unpacked packages). */
  scratch?: { mb: number; why: string };
  /** Why the gate's launcher for the runner does not serve this repository (vitest with projects of its own), when it does not. */
  launcherUnfit?: string;
  /** Arguments after the runner's subcommand, in the command and setup alike (cargo's `--features kv,std`), and why. */
  runnerArgs?: { args: string; says: string };
  /**
   * What init's try takes instead, in order, when the tests do not build with this detection (cargo
   * features that exclude each other): each a patch of it, and what it gives up.
   */
  fallbacks?: { patch: Partial<Omit<Detection, "fallbacks">>; says: string }[];
}

export interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  jest?: unknown;
  mocha?: unknown;
  /** Corepack's field: the package manager and its version (`pnpm@10.28.0+sha512.…`). */
  packageManager?: unknown;
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
  // A file git ignores is in no commit the gate judges (a package-lock.json that `init --add-deps`
  // just made, say): it is no evidence of how the judged tree installs or runs.
  const present = await list(dir);
  const ignored = await ignoredNames(dir, present);
  const files = new Set(present.filter((f) => !ignored.has(f)));
  const pkg = await readPackageJson(dir);
  const repo: RepoView = {
    dir, files, pkg, testDirs: await testDirs(dir, files),
    readText: (rel) => readText(join(dir, rel)), list: (rel) => list(join(dir, rel)),
    committed: async (rel) => (await stat(join(dir, rel)).then((s) => s.isFile(), () => false)) && !(await ignoredNames(dir, [rel])).has(rel),
  };
  const base = { install: null, runnerDeclared: false, reporterDeclared: false, testDirs: repo.testDirs, pythonPath: [], checks: [] };
  for (const runner of RUNNERS) {
    const found = await runner.detect(repo);
    if (found !== null) return { ...base, ...found, kind: runner.name };
  }
  const unsupported = await unsupportedIn(repo);
  return { ...base, kind: "none", evidence: unsupported ?? `no test runner found (looked for ${NONE_LOOKED_FOR})` };
}

const NONE_LOOKED_FOR = "package.json scripts and dependencies, vitest/jest/mocha configs, node --test, pytest and unittest files";

async function testDirs(dir: string, files: Set<string>): Promise<string[]> {
  const found: string[] = [];
  for (const folder of ["tests", "test", "spec", "__tests__"]) if (files.has(folder) && (await list(join(dir, folder))).length > 0) found.push(folder);
  return found;
}

/**
 * What the repository runs as its tests when no runner the gate reads was found: package.json's test
 * script (indirection followed), a Makefile's or justfile's `test` recipe, tox's or nox's commands.
 * One honest line: which runner, that the gate cannot read it yet, and how to make it write a report.
 */
async function unsupportedIn(repo: RepoView): Promise<string | null> {
  const sources: [string, string][] = [];
  if (repo.pkg !== null) sources.push(["package.json scripts.test", expandedTest(repo.pkg)]);
  for (const name of ["Makefile", "makefile", "GNUmakefile", "justfile", "Justfile"]) {
    const text = repo.files.has(name) ? await repo.readText(name) : null;
    const recipe = text === null ? null : testRecipe(text);
    if (recipe !== null) sources.push([`${name}'s test target`, recipe]);
  }
  const tox = repo.files.has("tox.ini") ? await repo.readText("tox.ini") : null;
  const toxCommands = tox === null ? null : /^\[testenv\][^[]*?^commands\s*=\s*((?:.*\n(?:[ \t]+.*\n)*))/m.exec(tox)?.[1];
  if (toxCommands != null) sources.push(["tox.ini's commands", toxCommands.replace(/\s+/g, " ").trim()]);
  const nox = repo.files.has("noxfile.py") ? await repo.readText("noxfile.py") : null;
  const noxRun = nox === null ? null : /session\.run\(([^)]*)\)/.exec(nox)?.[1];
  if (noxRun != null) sources.push(["noxfile.py's session", noxRun.replace(/["',]/g, " ").replace(/\s+/g, " ").trim()]);
  for (const [where, command] of sources) {
    const line = unsupportedRunner(command, where);
    if (line !== null) return line;
  }
  const named = sources.find(([, command]) => command.trim() !== "");
  return named === undefined ? null
    : `${named[0]} runs '${named[1].slice(0, 120)}', no runner the gate can read; make it write a JUnit XML report to $RANEX_JUNIT and name that command in tests.command`;
}

/** The recipe of a Makefile's or justfile's `test` target, its lines joined with `&&`; null when it has none. */
export function testRecipe(text: string): string | null {
  const m = /^test\s*:[^\n=]*\n((?:(?:\t| {2,}).*\n?)+)/m.exec(text);
  if (m === null) return null;
  return m[1]!.split("\n").map((l) => l.trim().replace(/^@/, "")).filter((l) => l !== "").join(" && ");
}

/** The names among `names` (top level of `dir`) that git ignores; none when `dir` is not a git work tree. */
async function ignoredNames(dir: string, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const out = await execa("git", ["-C", dir, "check-ignore", "--", ...names], { reject: false, env: { GIT_DIR: undefined, GIT_WORK_TREE: undefined } });
  return out.exitCode === 0 ? new Set(out.stdout.split("\n").filter((l) => l !== "")) : new Set();
}
