import type { Policy } from "../policy/schema.js";
import type { SandboxProfile } from "../sandbox/types.js";
import type { SuiteRun } from "./report-types.js";

/**
 * Everything the measuring process needs, as plain JSON. It names directories the parent already
 * filled (materialised trees without .git); it carries no key, token or secret of any kind.
 */
export interface MeasurePlan {
  policy: Policy;
  profile: SandboxProfile;
  /** Materialised head tree. Setup, checks and the test command run here. */
  headDir: string;
  /** Materialised base tree with the PR's new test files overlaid, or null when the cache answered. */
  baseDir: string | null;
  /** The base run from the cache, when there was one for exactly this key. */
  cachedBase: SuiteRun | null;
  /** Scratch directory for reports and the result file. */
  scratchDir: string;
  /** Whether to run the test suites at all (only when a required claim needs them). */
  runTests: boolean;
  checks: { name: string; run: string; timeout: number }[];
}

/** What the measuring process hands back. */
export interface MeasureResult {
  base: SuiteRun | null;
  head: SuiteRun | null;
  checks: { name: string; run: import("../sandbox/types.js").RunResult }[];
  timings: Record<string, number>;
}
