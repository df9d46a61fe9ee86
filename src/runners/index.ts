// The registry of test runners (issue 22): every runner the gate knows, each a module behind the
// Runner interface (src/runners/types.ts, which says how to add one). `ranex init` asks them in
// order which one a repository uses; a run asks which ones its command starts (canary, selection,
// report format).
import { cargo } from "./cargo.js";
import { go } from "./go.js";
import { gradle } from "./gradle.js";
import { jest } from "./jest.js";
import { maven } from "./maven.js";
import { mocha } from "./mocha.js";
import { nextest } from "./nextest.js";
import { nodeTest } from "./node-test.js";
import { nodeTap } from "./node-tap.js";
import { tape } from "./tape.js";
import { ava } from "./ava.js";
import { pytest } from "./pytest.js";
import { unittest } from "./unittest.js";
import { vitest } from "./vitest.js";
import type { ResolveFile } from "../measure/junit-paths.js";
import type { TestReport } from "../measure/report-types.js";
import type { FileSelectContext, ReportReader, Runner, RunnerName, Selection } from "./types.js";
import { lastStep } from "./command-words.js";

export type { Runner, RunnerName, Selection } from "./types.js";

/**
 * In detection order: the Node runners first (package.json says what the owner runs; only the one
 * it names answers), then pytest's evidence, the compiled ecosystems, and unittest last (a guess
 * from TestCase classes). At run time the same order decides which canaries a command gets.
 */
export const RUNNERS: readonly Runner[] = [vitest, jest, mocha, nodeTest, tape, ava, nodeTap, pytest, go, nextest, cargo, maven, gradle, unittest];

/** The order in which a command's runners get their canary, and the names the evidence shows. */
const CANARY_ORDER: readonly RunnerName[] = ["pytest", "node-test", "vitest", "jest", "tape", "ava", "tap", "go", "nextest", "cargo", "maven", "gradle"];
const CANARY_LABEL: Partial<Record<RunnerName, string>> = { "node-test": "node:test", tap: "node-tap" };

/** The runners a canary can be given to, as a note names them when a command names none. */
export const CANARY_RUNNERS = "pytest, node --test, vitest, jest, tape, ava and tap (through the gate's TAP launcher), go test -json, cargo test, cargo nextest run, mvn test, gradle test";

export function runnerNamed(name: string): Runner | undefined {
  return RUNNERS.find((r) => r.name === name);
}

/** The runners a test command starts, as far as its text tells. */
export function runnersIn(command: string): Runner[] {
  const rank = (r: Runner): number => {
    const i = CANARY_ORDER.indexOf(r.name);
    return i === -1 ? CANARY_ORDER.length + RUNNERS.indexOf(r) : i;
  };
  return RUNNERS.filter((r) => r.runs(command)).sort((a, b) => rank(a) - rank(b));
}

/** How a runner is named in canary outcomes ("node:test", "pytest", ...). */
export function canaryLabel(runner: Runner): string {
  return CANARY_LABEL[runner.name] ?? runner.name;
}

/** The first runner the command starts that can select, with its selection; null when none can. */
export function selectWith(command: string, ctx: Omit<Parameters<Runner["select"]>[0], "command">): Selection | null {
  for (const runner of runnersIn(command)) {
    const selection = runner.select({ ...ctx, command });
    if (selection !== null) return selection;
  }
  return null;
}

/**
 * How to run only the tests of `files` (the PR's new test files) with the command's runner, or null
 * when the runner the command starts cannot (the whole suite runs). Asked of the first runner the
 * command starts only: a command that starts several runners is not narrowed.
 */
export function selectFilesWith(command: string, ctx: Omit<FileSelectContext, "command">): Selection | null {
  const runners = runnersIn(command);
  if (runners.length !== 1) return null;
  const whole = runners[0]?.selectFiles?.({ ...ctx, command }) ?? null;
  if (whole !== null) return whole;
  // Steps before the runner (`npm run pretest && node --test …`, found on yargs/yargs-parser's shape):
  // they run as written, and the runner's own command is narrowed. The run proves it as any selection.
  const split = lastStep(command);
  if (split === null || runnersIn(split.last)[0] !== runners[0]) return null;
  const last = runners[0]?.selectFiles?.({ ...ctx, command: split.last }) ?? null;
  return last === null ? null : { ...last, command: `${split.steps} && ${last.command}` };
}

export function canSelectCommand(command: string): boolean {
  return runnersIn(command).some((r) => r.canSelect(command));
}

/** The native report format that claims this text, among the readers of the command's runners (then of all). */
export function readerFor(command: string, text: string): ReportReader | null {
  const own = runnersIn(command).map((r) => r.read).filter((r): r is ReportReader => r !== undefined);
  const all = RUNNERS.map((r) => r.read).filter((r): r is ReportReader => r !== undefined);
  return [...own, ...all].find((reader) => reader.claims(text)) ?? null;
}

/** The JUnit report with the ids of the command's runner (Surefire's `class#method`), or as read. */
export function junitIdsFor(command: string, report: TestReport, tree: { treeDir: string; resolve: ResolveFile; text?: string }): TestReport {
  const runner = runnersIn(command).find((r) => r.junitIds !== undefined);
  return runner?.junitIds?.(report, tree) ?? report;
}

/** The report with what the command's runner printed compared in (`contradictions`, notes), or as read. */
export function crossCheckFor(command: string, report: TestReport, output: { text: string; truncated: boolean }): TestReport {
  const runner = runnersIn(command).find((r) => r.crossCheck !== undefined);
  const checked = runner?.crossCheck?.(report, output, command);
  if (checked === undefined) return report;
  return {
    ...report, notes: [...report.notes, ...checked.notes],
    ...(checked.contradictions.length > 0 ? { contradictions: checked.contradictions } : {}),
  };
}

/** Every file any runner's dependencies are keyed on. */
export function dependencyKeyFiles(): string[] {
  return [...new Set(RUNNERS.flatMap((r) => r.deps.keyFiles))];
}
