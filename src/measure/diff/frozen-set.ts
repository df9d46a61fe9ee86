import { isNewOnHead, matcher, type DiffContext } from "./context.js";
import type { FrozenHelper } from "./frozen-helpers.js";
import { DEFAULT_FROZEN_GLOBS, TEST_DATA_GLOBS, vendorGlobs } from "./frozen-defaults.js";
export { DEFAULT_FROZEN_GLOBS } from "./frozen-defaults.js";
export { resolveSymlink, type SymlinkResolution } from "./symlinks.js";

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
  /** Is test data by the default globs (`testdata/**`, snapshots): frozen as of base, new ones a PR's own. */
  isTestData(path: string): boolean;
  /** For a symlink target already resolved to a repository path: does it reach into the frozen set? */
  reaches(resolved: string): boolean;
  /** The test helper this path is frozen as (issue 19), when that is the only reason it is frozen. */
  helperOf(path: string): FrozenHelper | undefined;
  /** The test helpers frozen for this change (not released by the policy). */
  helpers: readonly FrozenHelper[];
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
  const globs = [...DEFAULT_FROZEN_GLOBS, ...vendorGlobs(ctx.basePaths), ...ctx.policy.frozen];
  const exactGlob = matcher(globs);
  const perGlobNocase = globs.map((glob) => ({ glob, test: matcher([glob], { nocase: true }) }));
  const isTestFile = matcher(ctx.policy.tests.files);
  // `unfreeze` names exact paths, never globs (the schema refuses globs there).
  const unfrozen = new Set(ctx.policy.unfreeze);
  const isTestData = matcher(TEST_DATA_GLOBS);
  // Test files and test data as of the base: what the frozen tests run and compare with.
  // Files inside the base's submodules too (issue 22): a submodule's tests run as the tree's do.
  const baseTests = new Set([...ctx.basePaths, ...ctx.inside?.basePaths ?? []].filter((p) => isTestFile(p) || isTestData(p)));
  // The frozen tests' helpers, unless released by path (`tests.helpers.release`, or `unfreeze`).
  const released = new Set(ctx.policy.tests.helpers.release);
  const helpers = (ctx.helpers ?? []).filter((h) => !released.has(h.path) && !unfrozen.has(h.path));
  const helperByPath = new Map(helpers.map((h) => [h.path, h]));

  const frozenByRule = (path: string): boolean => !unfrozen.has(path) && (baseTests.has(path) || exactGlob(path));
  const has = (path: string): boolean => frozenByRule(path) || helperByPath.has(path);
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

  const helperOf = (path: string): FrozenHelper | undefined => (frozenByRule(path) ? undefined : helperByPath.get(path));
  return { has, caseShadowOf, isTestFile, isTestData, reaches, helperOf, helpers };
}

/** Is this exact path frozen for this change? */
export function isFrozen(path: string, ctx: DiffContext): boolean {
  return frozenSet(ctx).has(path);
}

/**
 * Added test files (by `tests.files`) that did not exist on base under any spelling: red-then-green
 * targets, not violations, unless `tests.allow_new` is false. Files the frozen globs cover
 * (`tests/conftest.py`) and submodules are never test files, nor is a file that defines no test
 * (`ctx.testless`: code named like a test, issue 19).
 */
export function newTestFiles(ctx: DiffContext): string[] {
  const frozen = frozenSet(ctx);
  const baseLower = new Set(ctx.basePaths.map((p) => p.toLowerCase()));
  const found = ctx.facts
    .filter((f) => isNewOnHead(f) && !f.submodule)
    .map((f) => f.path)
    .filter((p) => frozen.isTestFile(p) && !frozen.has(p) && !baseLower.has(p.toLowerCase()) && ctx.testless?.has(p) !== true);
  return [...new Set(found)].sort();
}
