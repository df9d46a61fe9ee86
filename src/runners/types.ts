// One test runner behind one small interface (issue 22). Each runner is a module of its own in this
// folder; src/runners/index.ts lists them. What used to be per-runner branches across measure/ and
// policy/ (which command runs which runner, its canary, its selection, its report format, what
// `ranex init` writes for it) is asked of the registry instead.
//
// Adding a runner:
//   1. write src/runners/<name>.ts exporting a `Runner` (copy the smallest neighbour: go.ts for a
//      native report, node-test.ts for JUnit);
//   2. add it to RUNNERS in src/runners/index.ts (order matters for detection: the first that
//      detects wins, and for commands that name several runners);
//   3. add `test/runners/<name>.test.ts` (its reader on a real report, its canary, its selection),
//      and a fixture repository in fixtures/repos with an e2e judgment when it is a new ecosystem.
import type { ResolveFile } from "../measure/junit-paths.js";
import type { TestReport } from "../measure/report-types.js";
import type { Detection, PackageJson } from "../policy/detect.js";
import type { GuardFacts } from "./registration-guard.js";

/** The runner names the registry knows (`Detection.kind` is one of them, or "none"). */
export type RunnerName =
  | "vitest" | "jest" | "mocha" | "node-test" | "tape" | "ava" | "tap" | "pytest" | "unittest" | "go" | "cargo" | "nextest" | "maven" | "gradle";

/** What a runner sees of a repository when `ranex init` asks it to detect itself. */
export interface RepoView {
  dir: string;
  /** Names at the repository's top level. */
  files: ReadonlySet<string>;
  /** package.json, parsed, or null. */
  pkg: PackageJson | null;
  /** Folders holding tests (tests, test, spec, __tests__) that are not empty. */
  testDirs: string[];
  readText(rel: string): Promise<string | null>;
  list(rel: string): Promise<string[]>;
  /** Whether a file at this path below the top level is there and git does not ignore it (the judged tree has it). */
  committed?(rel: string): Promise<boolean>;
}

/** What a runner found, for `ranex init`: the parts of Detection it decides. */
export type Found = Partial<Omit<Detection, "kind" | "evidence">> & { evidence: string };

/** A native report format other than JUnit XML. */
export interface ReportReader {
  /** What the format is called in messages ("go test -json"). */
  format: string;
  /** Whether the report's text is this format (JUnit is tried when no reader claims it). */
  claims(text: string): boolean;
  /** Parses the report; `treeDir` is the tree the run used (for file attribution). Throws on garbage. */
  parse(text: string, resolve: ResolveFile, treeDir: string): TestReport | Promise<TestReport>;
}

/** Where and how the canary family is given to one runner of a run (src/measure/canary.ts). */
export interface CanaryContext {
  command: string;
  treeDir: string;
  /** A folder of the gate's own for preload files (mounted read-only in the run), and how the run sees it. */
  hostDir: string;
  seenAs: string;
  /**
   * What every canary computes: `checksum(word)` (src/measure/canary.ts) is `right`, never `wrong`.
   * The must-fail canaries assert `wrong` through the runner's own assertion paths; the must-pass one `right`.
   */
  values: { word: string; right: number; wrong: number };
  /**
   * The tree as the run sees it, its frozen paths (relative) and, in a judgment, what the pull request
   * changed in it: the in-file canaries hold a frozen test file's registration to them
   * (./registration-guard.ts). Absent: no path is frozen.
   */
  tree?: Omit<GuardFacts, "gate">;
}

/** One canary of the family: its name as the report shows it, the assertion path it goes through, what it must do. */
export interface CanaryMember {
  name: string;
  via: string;
  expect: "fail" | "pass";
  /** Registered inside every test file of the run (jest's setupFilesAfterEnv): judged file by file. */
  inEachFile?: true;
  /**
   * A must-pass canary reported where it passes and again, failing, wherever something was seen
   * (node:test's registration watch, one process per file): a failure anywhere stands.
   */
  failsAnywhere?: true;
  /** Wrong in a file only where the base's run was not wrong the same way (same member, file and message): what the base does too is the owner's. */
  againstBase?: true;
  /**
   * Compiled into one test binary of several (a Go package, a Rust target, issue 19): judged with
   * that binary's own tests, which `ids` (a regular expression's source) matches. `folder`: where the
   * binary's test files are (Go: a load error there means the binary died, not that it was forged).
   * `errorsAreFailures`: a test reported errored is one test's exception (JUnit), not the binary's death.
   */
  inBinary?: { label: string; ids: string; folder?: string; errorsAreFailures?: true };
  /** The gate's file this canary is in, when the family spans several: only its load error errors it. */
  file?: string;
}

export type CanaryResult =
  /**
   * Added to the run: environment, files written in the tree (read-only in the run), the canaries
   * placed; `edited`: tree files the canary appended to (a Rust crate root), with their text to put back.
   */
  | { env?: Record<string, string>; treeFiles?: string[]; edited?: { file: string; text: string }[]; members: CanaryMember[]; notes?: string[] }
  /** Why this runner gets no canary in this command. */
  | { note: string };

export interface Selection {
  command: string;
  /** Added to the run's environment; RANEX_SELECT_FILE names the list the caller writes. */
  env: Record<string, string>;
  /** How the tests were selected, for the evidence. */
  how: string;
  /**
   * The runner reports a test its filter left out as skipped (vitest's and jest's name patterns), so
   * a listed test reported skipped proves nothing: the filter may have missed it.
   */
  skipsLeftOut?: true;
}

export interface SelectContext {
  command: string;
  ids: readonly string[];
  /** The list file's path as the run sees it (RANEX_SELECT_FILE). */
  listFile: string;
  backend: "bwrap" | "none";
  /** RANEX_SELECT_FILE and RANEX_SELECT_PATTERN, for the selection's env. */
  common: Record<string, string>;
  /** The tree the run uses, when the caller knows it (Maven reads its reactor to name only the selected modules). */
  treeDir?: string;
  /**
   * The tree was already built by a run of the same command (its main run, or an earlier repeat on it):
   * a runner may skip its build steps (Maven runs `surefire:test` alone).
   */
  built?: boolean;
}

/**
 * What a selection of whole test files is given (issue 22: the PR's own runs, `head+new` and
 * `base+new`, need only the PR's new test files). Paths are relative to the tree's root.
 */
export interface FileSelectContext {
  command: string;
  files: readonly string[];
  /** The tree the run uses (a runner may read its manifest: Cargo.toml, go.mod folders). */
  treeDir: string;
  backend: "bwrap" | "none";
  /** RANEX_SELECT_FILE (the list of files the caller writes), for the selection's env. */
  common: Record<string, string>;
}

/** The files of a commit, and their text. */
export interface BaseFiles {
  files: ReadonlySet<string>;
  read(path: string): Promise<string | null>;
}

export interface Runner {
  name: RunnerName;
  /** Whether a test command runs this runner, as far as its text tells. */
  runs(command: string): boolean;
  /** For `ranex init`: whether the repository uses this runner, from its files; null when not. */
  detect(repo: RepoView): Promise<Found | null>;
  /** The test command `ranex init` writes, and notes for the owner; null when it cannot write one. */
  command(found: Detection): { command: string; note: string[] } | null;
  /** The runner's native report; absent when it writes JUnit XML (read by src/measure/junit.ts). */
  read?: ReportReader;
  /** Renames the JUnit reader's ids to the runner's own (Surefire's `class#method`), with the tree the run used. */
  junitIds?(report: TestReport, tree: { treeDir: string; resolve: ResolveFile; text?: string }): TestReport;
  /**
   * Compares the report with what the runner's own process printed (the run's output, which left the
   * sandbox as it was printed): a contradiction means the report was rewritten after the runner
   * wrote it (Maven's console against Surefire's XML, src/runners/maven-console.ts).
   */
  crossCheck?(report: TestReport, output: { text: string; truncated: boolean }, command: string): { contradictions: string[]; notes: string[] };
  /**
   * The file of the base that declares a test the base run did not report (a target `ranex task
   * check` found absent: its file may have failed to load), for ids that do not start with their
   * file (`example.com/m/TestX`); absent or null when it cannot tell.
   */
  fileOfId?(id: string, base: BaseFiles): Promise<string | null>;
  /**
   * Why `command` never runs the test `id` of the base although the base holds it (a cargo feature
   * the command leaves off): one line for a person, or null when nothing tells (issue 22).
   */
  hiddenBy?(id: string, base: BaseFiles, command: string): Promise<string | null>;
  /** Gives the run its canary family (tests that must fail through the runner's assertions, one that must pass), or says why not. */
  canary(ctx: CanaryContext): Promise<CanaryResult>;
  /**
   * The canaries that run inside every test file (a setup file the runner loads into each), for the
   * runs that carry no canary of their own (the base and the PR's own runs); absent or null when
   * this runner or command has none. The canary run gets them from canary().
   */
  fileCanary?(ctx: CanaryContext): Promise<CanaryResult> | null;
  /** How to run only some ids, or null (the whole suite is run). */
  select(ctx: SelectContext): Selection | null;
  /**
   * How to run only the tests of these files, or null when this runner cannot run exactly them
   * from this command (then the whole suite runs). Whole files, packages or targets: more tests
   * than the files hold is allowed (nothing reads them), a test the command would not run never
   * (a file outside its paths, a Go testdata folder). The run must still prove it took effect
   * (src/measure/select.ts `filesUnproven`).
   */
  selectFiles?(ctx: FileSelectContext): Selection | null;
  /** Whether select() can ever answer for this command (without ids at hand). */
  canSelect(command: string): boolean;
  /** A line for the starter policy on what tests.stable's repeats cost with this runner. */
  repeatNote: string;
  /**
   * Dependencies: the files that key the once-only setup (src/measure/deps/key.ts reads these), and
   * the test-file globs the starter adds to tests.files beyond the defaults.
   */
  deps: { keyFiles: readonly string[] };
  extraTestFiles?: readonly string[];
}
