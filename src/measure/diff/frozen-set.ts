import { posix } from "node:path";
import { MODE_SYMLINK, type DiffFact } from "../../workspace/types.js";
import { isNewOnHead, matcher, type DiffContext } from "./context.js";

// The test harness of common runners, frozen wherever it appears (issue 2): a runner loads these
// before any test, so whoever edits or adds one can rewrite the results.
const HARNESS_FILES = [
  // Python: pytest and tox configuration, interpreter start-up hooks.
  "conftest.py", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini", "noxfile.py", "setup.cfg", "pyproject.toml",
  "sitecustomize.py", "usercustomize.py", "*.pth",
  // Node: manifest, install-time configuration and hooks, runner configuration.
  "package.json", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs",
  "vitest.config.*", "vitest.workspace.*", "vite.config.*", "jest.config.*", ".mocharc*", "babel.config.*", ".babelrc*",
  // Lock files: they decide which runner and plugins get installed.
  "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb",
  "poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock", "Cargo.lock", "go.sum", "Gemfile.lock", "composer.lock",
  "Makefile", "GNUmakefile",
];

/** Frozen whatever the policy says, unless it names a path in `unfreeze`. Each is matched at any depth. */
export const DEFAULT_FROZEN_GLOBS: readonly string[] = [
  ".github/**",
  ".ranex/**",
  "**/node_modules/**",
  ...HARNESS_FILES.map((name) => `**/${name}`),
];

/** The frozen set of one change: test files as of base, default and policy globs, minus `unfreeze`. */
export interface FrozenSet {
  /** Frozen exactly as spelled (case matters, as it does for git and Linux). */
  has(path: string): boolean;
  /**
   * For a path that is not frozen itself: the frozen path (or glob) it equals case-insensitively, so
   * that on a case-insensitive filesystem it would replace a frozen file. Null when it shadows nothing.
   */
  caseShadowOf(path: string): string | null;
  /** Is a test file by `tests.files` (case matters). */
  isTestFile(path: string): boolean;
  /** For a symlink target already resolved to a repository path: does it reach into the frozen set? */
  reaches(resolved: string): boolean;
}

const cache = new WeakMap<DiffContext, FrozenSet>();

export function frozenSet(ctx: DiffContext): FrozenSet {
  const known = cache.get(ctx);
  if (known !== undefined) return known;
  const made = buildFrozenSet(ctx);
  cache.set(ctx, made);
  return made;
}

function buildFrozenSet(ctx: DiffContext): FrozenSet {
  const globs = [...DEFAULT_FROZEN_GLOBS, ...ctx.policy.frozen];
  const exactGlob = matcher(globs);
  const perGlobNocase = globs.map((glob) => ({ glob, test: matcher([glob], { nocase: true }) }));
  const isTestFile = matcher(ctx.policy.tests.files);
  // `unfreeze` names exact paths, never globs (the schema refuses globs there).
  const unfrozen = new Set(ctx.policy.unfreeze);
  const baseTests = new Set(ctx.basePaths.filter((p) => isTestFile(p)));

  const has = (path: string): boolean => !unfrozen.has(path) && (baseTests.has(path) || exactGlob(path));
  const frozenBase = ctx.basePaths.filter(has);
  const frozenBaseByLower = new Map(frozenBase.map((p) => [p.toLowerCase(), p]));

  const caseShadowOf = (path: string): string | null => {
    if (has(path) || unfrozen.has(path)) return null;
    const twin = frozenBaseByLower.get(path.toLowerCase());
    if (twin !== undefined && twin !== path) return twin;
    const glob = perGlobNocase.find((g) => g.test(path));
    return glob === undefined ? null : `frozen pattern ${glob.glob}`;
  };

  const reaches = (resolved: string): boolean => {
    // A link to the root (or above it) reaches everything, the harness included.
    if (resolved === "" || resolved === ".") return true;
    if (has(resolved) || caseShadowOf(resolved) !== null) return true;
    const lowerDir = `${resolved.toLowerCase()}/`;
    if (frozenBase.some((p) => p.toLowerCase().startsWith(lowerDir))) return true;
    // A folder a frozen glob covers (`.github`, `node_modules`): a file inside it would be frozen.
    return exactGlob(`${resolved}/x`) || perGlobNocase.some((g) => g.test(`${resolved}/x`));
  };

  return { has, caseShadowOf, isTestFile, reaches };
}

/** Is this exact path frozen for this change? */
export function isFrozen(path: string, ctx: DiffContext): boolean {
  return frozenSet(ctx).has(path);
}

/**
 * Added test files (by `tests.files`) that did not exist on base under any spelling: red-then-green
 * targets, not violations, unless `tests.allow_new` is false. Files the frozen globs cover
 * (`tests/conftest.py`) and submodules are never test files.
 */
export function newTestFiles(ctx: DiffContext): string[] {
  const frozen = frozenSet(ctx);
  const baseLower = new Set(ctx.basePaths.map((p) => p.toLowerCase()));
  const found = ctx.facts
    .filter((f) => isNewOnHead(f) && !f.submodule)
    .map((f) => f.path)
    .filter((p) => frozen.isTestFile(p) && !frozen.has(p) && !baseLower.has(p.toLowerCase()));
  return [...new Set(found)].sort();
}

export type SymlinkResolution =
  | { kind: "inside"; path: string }
  | { kind: "absolute"; target: string }
  | { kind: "escapes"; path: string }
  | { kind: "unknown" };

/** Where a symlink on head points, relative to the repository root (its own folder is the start). */
export function resolveSymlink(fact: DiffFact): SymlinkResolution | null {
  if (fact.newMode !== MODE_SYMLINK || fact.status === "D") return null;
  const target = fact.symlinkTarget;
  if (target === null || target === "") return { kind: "unknown" };
  if (target.startsWith("/")) return { kind: "absolute", target };
  const joined = posix.normalize(posix.join(posix.dirname(fact.path), target)).replace(/\/+$/, "");
  if (joined === ".." || joined.startsWith("../")) return { kind: "escapes", path: joined };
  return { kind: "inside", path: joined === "." ? "" : joined };
}
