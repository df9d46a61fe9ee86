// What the diff claims need from the trees beyond the diff itself (issue 19), read in the trusted
// parent: the head tree's symlinks (resolved link by link), the new files named like tests that
// define none, and the module names a new top-level module may not take.
import { builtinModules } from "node:module";
import type { Policy } from "../policy/schema.js";
import type { Repository } from "../workspace/index.js";
import { MODE_SYMLINK, type DiffFact } from "../workspace/types.js";
import { matcher, type ModuleNames } from "../measure/diff/context.js";
import { definesNoTest, isTestSource } from "../measure/diff/defines-tests.js";
import { DEFAULT_FROZEN_GLOBS } from "../measure/diff/frozen-set.js";
import { pythonModuleNames } from "./module-names.js";
import { PYTHON_STDLIB } from "../measure/diff/python-stdlib.js";

const PY_MODULE = /\.(?:py|pyc|pyw|pyd|so)$/;

/** Every symlink of a tree: path -> target, from the tree's own entries (git ls-tree, cat-file). */
export function treeLinks(repo: Repository, treeish: string): Promise<Map<string, string>> {
  return repo.symlinks(treeish);
}

/** New files the test globs match, source of a test runner's language, that define no test. */
export async function testlessFiles(repo: Repository, head: string, facts: readonly DiffFact[], policy: Policy): Promise<Set<string>> {
  const isTestFile = matcher(policy.tests.files);
  const frozenByGlob = matcher([...DEFAULT_FROZEN_GLOBS, ...policy.frozen]);
  const found = new Set<string>();
  for (const fact of facts) {
    const added = fact.status === "A" || fact.status === "R" || fact.status === "C";
    if (!added || fact.submodule || fact.newMode === MODE_SYMLINK || !isTestFile(fact.path) || frozenByGlob(fact.path) || !isTestSource(fact.path)) continue;
    // A file over the size limit is not read: diff.safety already fails it for its size.
    const blob = await repo.readBlob(head, fact.path, policy.limits.file_bytes).catch(() => null);
    if (blob !== null && definesNoTest(fact.path, blob.toString("utf8"))) found.add(fact.path);
  }
  return found;
}

/** The names outside the tree that a new top-level module would shadow, for this policy's runs. */
export async function moduleNames(
  repo: Repository, base: string, basePaths: readonly string[], policy: Policy, facts?: readonly DiffFact[],
): Promise<ModuleNames> {
  // python3 is asked only when the change adds a file Python could import: most changes add none,
  // and then no name of an installed distribution can be taken (the committed list stands in).
  const addsPython = facts === undefined || facts.some((f) => f.status !== "D" && f.status !== "M" && f.status !== "T" && PY_MODULE.test(f.path));
  const python = addsPython ? await pythonModuleNames(policy.toolchain.path) : { pythonStdlib: PYTHON_STDLIB, pythonInstalled: [] };
  const [packages, pytestPythonPath] = await Promise.all([nodePackages(repo, base, basePaths), pytestPaths(repo, base, basePaths)]);
  return { ...python, nodeBuiltins: builtinModules, nodePackages: packages, pytestPythonPath };
}

// pytest reads its configuration from the first of these at the root that has a pytest section.
const PYTEST_CONFIGS = ["pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"];

/**
 * The folders pytest's `pythonpath` option names in the base's configuration (read as text: the
 * TOML list or the ini value, one line). Every configuration file is read, not only the one pytest
 * picks: a root too many is a stricter check, never a missed one.
 */
async function pytestPaths(repo: Repository, base: string, basePaths: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const file of PYTEST_CONFIGS.filter((f) => basePaths.includes(f))) {
    const text = (await repo.readBlob(base, file, MAX_MANIFEST).catch(() => null))?.toString("utf8") ?? "";
    for (const line of text.matchAll(/^[ \t]*pythonpath[ \t]*=[ \t]*(.*)$/gm)) {
      const value = line[1] ?? "";
      const entries = value.trim().startsWith("[") ? [...value.matchAll(/["']([^"']*)["']/g)].map((m) => m[1] ?? "") : value.split(/[\s,]+/);
      for (const entry of entries) {
        const clean = entry.trim().replace(/^\.\/+/, "").replace(/\/+$/, "");
        if (clean === "" || clean === "." || clean.startsWith("/") || clean.split("/").includes("..")) continue;
        found.add(clean);
      }
    }
  }
  return [...found].sort();
}

const MAX_MANIFEST = 1024 * 1024;

/** Packages the base declares in its root package.json, and those it has committed in node_modules. */
async function nodePackages(repo: Repository, base: string, basePaths: readonly string[]): Promise<string[]> {
  const names = new Set<string>();
  for (const path of basePaths) {
    const m = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    if (m?.[1] !== undefined) names.add(m[1]);
  }
  if (basePaths.includes("package.json")) {
    try {
      const blob = await repo.readBlob(base, "package.json", MAX_MANIFEST);
      const manifest = JSON.parse(blob?.toString("utf8") ?? "{}") as Record<string, unknown>;
      for (const key of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
        const deps = manifest[key];
        if (deps !== null && typeof deps === "object") for (const name of Object.keys(deps)) names.add(name);
      }
    } catch {
      // A manifest that does not parse declares nothing; the test run will say so on its own.
    }
  }
  return [...names].sort();
}
