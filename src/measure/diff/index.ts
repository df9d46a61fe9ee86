// The three diff claims (DESIGN.md, "Claims"): pure functions of the diff facts, no I/O.
export { type DiffContext, escapeUnsafe, plural, shown } from "./context.js";
export { DEFAULT_FROZEN_GLOBS, frozenSet, isFrozen, newTestFiles, resolveSymlink, type FrozenSet, type SymlinkResolution } from "./frozen-set.js";
export { frozenClaim, frozenFindings, FROZEN_CLAIM, type FrozenFinding } from "./frozen.js";
export { scopeClaim, SCOPE_CLAIM } from "./scope.js";
export { safetyClaim, SAFETY_CLAIM } from "./safety.js";
export { pathTricks, runnersIn, shadowedTool } from "./safety-paths.js";
export { harnessReferences } from "./harness.js";
