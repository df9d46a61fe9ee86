// Plain data handed between the run orchestration and the test claims. The orchestration runs the
// suites (src/measure/run-*.ts) and builds SuiteRun values; the claims only read them.
import type { RunResult } from "../sandbox/types.js";
import type { RunProvenance } from "./provenance/judge.js";

export type CaseResult = "passed" | "failed" | "errored" | "skipped";

/**
 * pytest's expected-failure outcomes. An xfail is reported as skipped, a strict xpass as failed; the
 * flavour keeps them apart from a plain skip or failure. Regression treats both as not passing.
 */
export type CaseFlavour = "xfail" | "xpass";

export interface TestCaseResult {
  /** `<file>::<name>` (pytest-style node id), or `<classname>::<name>` when no file could be found. */
  id: string;
  /** Path of the test file relative to the tree root, or null when the report does not say. */
  file: string | null;
  name: string;
  result: CaseResult;
  flavour?: CaseFlavour;
  /** The first line of the failure, error or skip message, shortened. */
  message?: string;
  /**
   * Set only when the id occurs more than once in the report (a `test.each` title without a
   * placeholder, a repeated describe title): every copy's outcome, in report order. `result` above is
   * then the worst of them. The claims compare copies as a multiset (src/measure/tests/outcomes.ts).
   */
  copies?: CopyOutcome[];
}

export interface LoadErrorMessage {
  file: string;
  message: string;
}

/** One copy of a test whose id the report holds more than once. */
export interface CopyOutcome {
  result: CaseResult;
  flavour?: CaseFlavour;
  message?: string;
}

export interface TestReport {
  cases: TestCaseResult[];
  /** `sha256:<hex>` of the report's bytes. */
  digest: string;
  /** Ids that occur more than once; their cases carry `copies`, compared as counts of outcomes. */
  duplicates: string[];
  /**
   * Test files that failed to load or collect: pytest collection errors, node:test file failures,
   * vitest's failed imports, jest-junit's suites that failed to run (src/measure/junit-load-errors.ts).
   */
  loadErrors: string[];
  /** Why, for the files in loadErrors whose report said more than "failed": one line each, by file. */
  loadErrorMessages?: LoadErrorMessage[];
  /** What a person should know about how the report was read (unmapped classnames, ...). */
  notes: string[];
  /**
   * What the runner's own word contradicts in this output (issue 19), the reader's proof that it is not
   * what happened: Maven's console against Surefire's XML (src/runners: `crossCheck`), a cargo test
   * binary that printed failed tests yet exited 0, a nextest test that passed without libtest's end
   * of it. The run is not believed (unsafe), as when a canary comes back wrong.
   */
  contradictions?: string[];
}

/**
 * The separate runs of one judgment (docs/measurement.md). `base` is the base tree exactly; `base+new`
 * adds the PR's new test files; `head` is the head without them; `head+new` is the head whole.
 */
export type RunName = "base" | "base+new" | "head" | "head+new" | SealedRunName;

/**
 * The runs of sealed acceptance tests (issue 20): the base and the head (without the PR's new test
 * files), each with the sealed files laid over it. Their raw results never leave the measuring process.
 */
export type SealedRunName = "sealed-base" | "sealed-head";

/** What became of the canary in a run (src/measure/canary.ts). */
export interface CanaryOutcome {
  name: string;
  /** The runners it was given to; empty when it could not be placed. */
  runners: string[];
  result: CaseResult | "absent";
  /** Whether any other test in the report passed or failed (a canary skipped alone is no sign). */
  othersRan: boolean;
  notes: string[];
  /** Each canary of the family: its name, the assertion path it goes through, what it must do, what it did. */
  members?: CanaryMemberOutcome[];
}

/** One canary of the family and what it did (for one inside every test file: the worst of them). */
export interface CanaryMemberOutcome {
  name: string;
  via: string;
  expect: "fail" | "pass";
  result: CaseResult | "absent";
  /** What a must-pass canary that failed said (node:test's registration watch names the test and the file). */
  message?: string;
  /**
   * A canary that runs inside every test file: in how many files it was reported, and the files
   * where its outcome was wrong (at most 10 named, `wrongCount` counts them all).
   */
  inEachFile?: { files: number; wrong: { file: string; result: CaseResult | "absent"; message?: string }[]; wrongCount: number };
  /** Judged against the base's run of the same member (src/measure/tests/canary-findings.ts). */
  againstBase?: true;
  /**
   * A canary compiled into one test binary of several: the binary, whether its own tests ran, whether
   * one passed, and whether it died (a test that did not finish, a panic, a build error) (issue 19).
   */
  inBinary?: { label: string; othersRan: boolean; otherPassed: boolean; died: boolean };
}

/** One run of the suite on one tree. */
export interface SuiteRun {
  label: RunName;
  setup: RunResult | null;
  /** Null when setup failed or timed out, so the command never ran. */
  command: RunResult | null;
  /** Null when the report is missing or was refused. */
  report: TestReport | null;
  /** Why `report` is null ("no JUnit report at $RANEX_JUNIT", "refused: DTD present", ...). */
  reportError: string | null;
  /** Present on the run that carried the canary; the report no longer holds it. */
  canary?: CanaryOutcome;
  /** What the gate's hooks saw load and happen in this run (src/measure/provenance), bounded. */
  provenance?: RunProvenance;
  /**
   * The once-only setup this run used instead of its own (src/measure/deps): its key, whether the
   * result came from the cache, and on a miss how long the one setup took. `installed`: when and in
   * how long the setup that filled the cache ran (on a hit; absent for entries stored before it was kept).
   * `entries`: where the setup's entries are in the tree (`.venv`, `node_modules`): made from the base,
   * read-only in the run, so what runs from them is installed code, not the change's. `goStd`: the
   * gate's Go standard-library layers (deps/go-std.ts): kept or built now, or why one is missing.
   */
  deps?: { key: string; hit: boolean; setupMs: number | null; installed?: DepsInstall; entries?: string[]; goStd?: string };
  /**
   * The ids this run was asked to run (a repeat of selected tests), set by the measuring side, never
   * read from the report; absent for a run of the whole suite. A run says nothing of ids outside it.
   */
  selected?: string[];
  /**
   * The test files this run was given alone (the PR's new test files, in its own runs `head+new` and
   * `base+new`) and proved it ran (src/measure/select.ts `filesUnproven`); absent when it ran the
   * whole suite. Its other tests (a Go package's frozen ones) are reported as they ran.
   */
  selectedFiles?: string[];
  /**
   * Why this run is the whole suite although a selection was asked for: a selection that did not
   * take effect (src/measure/select.ts `selectionUnproven`) is never read as an outcome.
   */
  selectionLost?: string;
}

/** A test that must be red on base and green on head. */
export interface Target {
  id: string;
  /** `task`: named by the task manifest; `new-file`: a test in a file the PR adds (self-authored). */
  origin: "task" | "new-file";
}

/** The one setup behind a dependency cache entry: how long it took, and its day (YYYY-MM-DD). */
export interface DepsInstall {
  ms: number;
  on: string;
}
