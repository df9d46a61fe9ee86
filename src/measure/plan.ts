import type { RunFact } from "../kernel/types.js";
import type { Policy } from "../policy/schema.js";
import type { RunResult, SandboxProfile } from "../sandbox/types.js";
import type { RunName, SuiteRun } from "./report-types.js";

/**
 * One run of the test suite: a tree of its own, what it is for, and how it is contained. The plan is
 * a list of these, so other work (repeats, a setup cache) can add or change runs without new code
 * paths; docs/measurement.md says what each run decides.
 */
export interface RunSpec {
  name: RunName;
  /** What this run decides, in words a person reads. */
  purpose: string;
  /** Materialised tree, private to this run (nothing else runs in it). */
  treeDir: string;
  /** Paths relative to treeDir that are read-only in this run: the frozen files present in it. */
  readonly: string[];
  /**
   * The paths of this tree the pull request changed or added (none on the base): the registration
   * watch holds only these, and what the run writes, to be the PR's (src/runners/registration-guard.ts).
   * Absent: every tree file the run can write is.
   */
  changed?: string[];
  /** Add the canary (src/measure/canary.ts) to this run's test command. */
  canary: boolean;
  /** Lower runs first when cores are short: the run the verdict depends on most goes first. */
  priority: number;
  /**
   * Run only the tests of these files when the runner can select them and the run proves it did
   * (the PR's own runs: its new test files); otherwise, and when absent, the whole suite.
   */
  files?: string[];
  /** Answered from the base cache: not run. */
  cached: SuiteRun | null;
}

/**
 * Everything the measuring process needs, as plain JSON. It names directories the parent already
 * filled (materialised trees without .git); it carries no key, token or secret of any kind.
 */
export interface MeasurePlan {
  policy: Policy;
  profile: SandboxProfile;
  runs: RunSpec[];
  /** Where the checks run: a copy of the whole head of their own, never a tree whose tests are measured. */
  checksTree: { treeDir: string; readonly: string[] } | null;
  /** Scratch directory for reports, canaries and the result file. */
  scratchDir: string;
  checks: { name: string; run: string; timeout: number }[];
  /** How many runs may go at once (the cores this judgment may use). */
  parallel: number;
  /** The once-only setup (src/measure/deps): present when the policy has a setup and tests run. */
  deps?: DepsPlan;
  /** tests.stable: repeat the targets and regression suspects on these trees (src/measure/repeats.ts). */
  repeats?: RepeatPlan;
  /** diff.needed: one tree per mutant, each the measured tree with one hunk put back. */
  needed?: NeededPlan;
  /** tests.sealed: the box and the two trees its files are laid over (src/measure/sealed-runs.ts). */
  sealed?: SealedPlan;
}

/**
 * The sealed acceptance tests of the task (issue 20). The box is ciphertext, as the base holds it;
 * the key that opens it reaches the measuring process through a pipe of its own, never this plan.
 */
export interface SealedPlan {
  box: string;
  base: { treeDir: string; readonly: string[]; changed?: string[] };
  head: { treeDir: string; readonly: string[]; changed?: string[] };
}

/** How one sealed test went, by its short id only (a keyed hash of its name). */
export interface SealedTestOutcome {
  id: string;
  /** `failed`, `errored`, `absent`, `load-error`, `passed`, `skipped`, `xfail`, `xpass`. */
  base: string;
  head: string;
}

/**
 * All that leaves the measuring process of the sealed runs: counts, short ids, outcomes and run facts
 * whose output is withheld. Problems are the gate's own words, never the runs' output.
 */
export type SealedOutcome =
  | { opened: false; reason: string }
  | {
    opened: true;
    files: number;
    tests: SealedTestOutcome[];
    runs: RunFact[];
    problems: string[];
    unsafe: boolean;
  };

/** diff.needed's mutants, and what the measuring process needs to choose the tests they run. */
export interface NeededPlan {
  mutants: MutantSpec[];
  /**
   * A pristine copy of the mutants' reference tree, for one run of the selected tests without any
   * mutation (src/measure/mutants.ts); null when the runner cannot select, so every mutant runs the suite.
   */
  selectionTree: { treeDir: string; readonly: string[] } | null;
  /** The task's targets and the PR's new test files: with the base run, they say which tests are watched. */
  taskTargets: string[];
  newFiles: string[];
}

export interface RepeatPlan {
  /** Repeats after the main run (the policy's `tests.repeat` less one). */
  count: number;
  taskTargets: string[];
  newFiles: string[];
  /** The tree each run's repeats use; `setupFirst` when the main run came from the base cache. */
  trees: Partial<Record<RunName, RepeatTree>>;
  /**
   * Trees idle from the start, where the task targets' repeats begin beside the main runs: the
   * cached base's tree and a pristine copy of the head (src/measure/repeats.ts). Absent: none.
   */
  early?: Partial<Record<"base" | "head", RepeatTree>>;
  /**
   * The base's repeats of the task targets, read from the base cache with the base run
   * (src/judge/base-repeats-cache.ts): made on no tree of this judgment, so not made again.
   */
  cached?: { base?: { ids: string[]; runs: SuiteRun[] } };
}

export interface RepeatTree {
  treeDir: string;
  readonly: string[];
  /** No main run ran its setup on this tree. */
  setupFirst: boolean;
}

export interface MutantSpec {
  id: number;
  /** The run whose tree this mutant copies: its reference. */
  of: RunName;
  treeDir: string;
  readonly: string[];
}

export interface MutantRun {
  id: number;
  /**
   * The full suite on the mutant. Null when it did not run: the selected tests already changed
   * (`selected` killed it), or `why` says why.
   */
  run: SuiteRun | null;
  /** The selected tests on the mutant, when the mutants were selected (MutantSelection `used`). */
  selected?: SuiteRun;
  why?: string;
}

/**
 * Which tests the mutants ran. `used`: every test file holding a watched test, first, on each mutant
 * (and once on the unmutated tree, `reference`); a mutant they do not kill runs the full suite.
 * Otherwise every mutant runs the full suite, and `why` says why.
 */
export type MutantSelection =
  | { used: true; how: string; files: string[]; ids: string[]; suiteCases: number; reference: SuiteRun }
  | { used: false; why: string };

/** Where a setup's result is cached and under which key; the parent computed the key from the base. */
export interface DepsPlan {
  cacheDir: string;
  /** `sha256:…` over the lock files, the setup command, its network and the sandbox profile. */
  key: string;
  /** The cache is kept at most this large; the least recently used entries go first. */
  maxBytes: number;
  /** A clean copy of the base for the setup, laid out when the parent found no cached result; else null. */
  setupTree: { treeDir: string; readonly: string[] } | null;
  /**
   * The policy builds into the gate's Go build cache: where the gate keeps its standard-library
   * layers (deps/go-std.ts) and where this judgment's stamp goes, how long a failed build is believed
   * (ms) and how many layers are kept: the operator's knobs, read by the parent (the measuring
   * process has no environment). Absent for other policies.
   */
  goStd?: { cacheDir: string; scratchDir: string; retryMs: number; keep: number };
}

/** What the measuring process hands back. */
export interface MeasureResult {
  runs: Partial<Record<RunName, SuiteRun>>;
  checks: { name: string; run: RunResult }[];
  timings: Record<string, number>;
  /** The repeats of each run, in order (tests.stable). */
  repeats?: Partial<Record<RunName, SuiteRun[]>>;
  /** A second run of the base's files whose ids the head lacked exactly (./repeats.ts, runBaseAgain): tells ids the run makes up. */
  baseAgain?: SuiteRun;
  mutants?: MutantRun[];
  mutantSelection?: MutantSelection;
  /**
   * Set when a required claim had already failed on a run that timed out or hit a limit: the
   * repeats and mutants not yet started were not started (./decided.ts), and this says why.
   */
  stopped?: string;
  sealed?: SealedOutcome;
}
