// The canary family: tests the gate adds to the run that decides regression and task targets. Some
// must fail, each through one of the runner's own assertion paths (a plain raise, `assert`, unittest's
// asserts, node:assert strict and legacy, jest's and vitest's `expect`), and one must pass. A runner
// (or code under test) that rewrites results wholesale, or neuters an assertion library, reports one
// of them with the wrong outcome, which no honest run can do. Their names are drawn fresh each run
// from the words real tests use (./canary-names.ts), and they sit beside the tree's own test files:
// there is no prefix, no fixed environment variable, no fixed file name to look for.
import { mkdir } from "node:fs/promises";
import { CANARY_RUNNERS, canaryLabel, runnersIn } from "../runners/index.js";
import type { CanaryContext, CanaryMember, CanaryResult, Runner } from "../runners/types.js";
import type { CaseResult, CanaryMemberOutcome, CanaryOutcome, TestCaseResult, TestReport } from "./report-types.js";
import { inEachFile } from "./canary-files.js";
import { phrases, salt } from "./canary-names.js";

export type { CanaryMember } from "../runners/types.js";

/** A runner's name as the canary's evidence shows it ("pytest", "node:test", "vitest", "jest", "go", ...). */
export type CanaryRunner = string;

export interface PlacedCanary {
  /** The first canary that must fail: what a reason names when the family is spoken of as one. */
  name: string;
  runners: CanaryRunner[];
  members: CanaryMember[];
  /** Test files the gate wrote into the run's tree (relative paths); read-only in the run, removed after it. */
  treeFiles: string[];
  /** Tree files the gate appended to (a Rust crate root), read-only in the run, their text put back after it. */
  edited: { file: string; text: string }[];
  /** Added to the test command's environment (node:test's preload). */
  env: Record<string, string>;
  /** Why the canary could not be given to a runner the command names. */
  notes: string[];
}

/** The runners a test command starts, as far as its text tells (src/runners). */
export function runnersOf(command: string): CanaryRunner[] {
  return runnersIn(command).map(canaryLabel);
}

/** What the canaries compute: a checksum of a word, so no literal in them gives the expected value away. */
export function checksum(text: string): number {
  let sum = 0;
  for (let i = 0; i < text.length; i += 1) sum += (i + 1) * text.charCodeAt(i);
  return sum % 1009;
}

/**
 * Gives each runner `command` names its canary family, the way its module says (src/runners): pytest
 * and vitest a test file beside one of the tree's own test files; jest through the gate's launcher a
 * setup file loaded into every test file (a test file without it); node:test a preload
 * (`seenAs/node/…`, on NODE_OPTIONS) that registers them in the first test file's process; go,
 * cargo and maven a test file of their language. `hostDir` is the gate's read-only folder of the run.
 */
export async function placeCanary(command: string, treeDir: string, hostDir: string, seenAs: string, tree?: CanaryContext["tree"]): Promise<PlacedCanary> {
  const runners = runnersIn(command);
  if (runners.length === 0) {
    return { ...emptyPlaced(), notes: [`the test command names no runner the gate can give a canary to (${CANARY_RUNNERS})`] };
  }
  return place(runners.map((runner) => ({ runner, give: (ctx: CanaryContext) => runner.canary(ctx) })), command, treeDir, hostDir, seenAs, tree);
}

/**
 * The canaries that run inside every test file (jest's, through the gate's launcher), for a run that
 * carries no canary of its own: the base and the PR's own runs, where a new test file (or what it
 * imports) could neuter `expect` for itself. Null when the command's runners have none.
 */
export async function placeFileCanary(command: string, treeDir: string, hostDir: string, seenAs: string, tree?: CanaryContext["tree"]): Promise<PlacedCanary | null> {
  const givers = runnersIn(command).flatMap((runner) => {
    const fileCanary = runner.fileCanary;
    return fileCanary === undefined ? [] : [{ runner, give: (ctx: CanaryContext) => fileCanary(ctx) }];
  });
  if (givers.length === 0) return null;
  const placed = await place(givers, command, treeDir, hostDir, seenAs, tree);
  return placed.members.length === 0 ? null : placed;
}

const emptyPlaced = (): PlacedCanary => ({ name: "", runners: [], members: [], treeFiles: [], edited: [], env: {}, notes: [] });

type Giver = { runner: Runner; give: (ctx: CanaryContext) => Promise<CanaryResult> | null };

async function place(givers: Giver[], command: string, treeDir: string, hostDir: string, seenAs: string, tree?: CanaryContext["tree"]): Promise<PlacedCanary> {
  const placed = emptyPlaced();
  // The gate's folder of the run: preloads and launcher files go there (node:test, mocha, jest).
  await mkdir(hostDir, { recursive: true });
  const word = phrases(1)[0]?.join("") ?? "value";
  const right = checksum(word);
  const values = { word, right, wrong: right + salt() };
  for (const { runner, give } of givers) {
    const given = await give({ command, treeDir, hostDir, seenAs, values, ...(tree !== undefined ? { tree } : {}) });
    if (given === null) continue;
    if ("note" in given) {
      placed.notes.push(given.note);
      continue;
    }
    Object.assign(placed.env, given.env ?? {});
    placed.treeFiles.push(...given.treeFiles ?? []);
    placed.edited.push(...given.edited ?? []);
    placed.members.push(...given.members);
    placed.notes.push(...given.notes ?? []);
    placed.runners.push(canaryLabel(runner));
  }
  placed.name = placed.members.find((m) => m.expect === "fail")?.name ?? "";
  return placed;
}

const RANK: Record<CaseResult, number> = { failed: 0, errored: 0, skipped: 1, passed: 2 };

/**
 * What the repository's own tests of one test binary did, for the canary compiled into it. It died
 * when one of its tests did not finish or it failed to load (a build error, a panic): then a canary
 * it never reached is explained, and the report is red already.
 */
function inBinary(binary: NonNullable<CanaryMember["inBinary"]>, others: readonly TestCaseResult[], loadErrors: readonly string[]): NonNullable<CanaryMemberOutcome["inBinary"]> {
  const ids = new RegExp(binary.ids);
  const own = others.filter((c) => ids.test(c.id));
  const folder = binary.folder;
  const inFolder = (file: string): boolean => folder !== undefined && (folder === "" ? !file.includes("/") : file.startsWith(`${folder}/`) && !file.slice(folder.length + 1).includes("/"));
  return {
    label: binary.label,
    othersRan: own.some((c) => c.result !== "skipped"),
    otherPassed: own.some((c) => c.result === "passed"),
    died: (binary.errorsAreFailures !== true && own.some((c) => c.result === "errored")) || loadErrors.some(inFolder),
  };
}

type Placed = Pick<PlacedCanary, "name" | "runners" | "notes" | "members" | "treeFiles">;

/**
 * Takes the canaries out of a report, so they are never a regression, a target or a vanished test,
 * and says what became of each. A canary file that failed to load errored every canary in it.
 * Reported more than once (a parallel runner), the most suspicious result stands.
 */
export function stripCanary(report: TestReport, canary: Placed): { report: TestReport; outcome: CanaryOutcome } {
  const files = new Set(canary.treeFiles);
  const names = new Set(canary.members.map((m) => m.name));
  const isCanary = (c: { file: string | null; name: string }): boolean => (c.file !== null && files.has(c.file)) || names.has(c.name);
  const mine = report.cases.filter(isCanary);
  const others = report.cases.filter((c) => !mine.includes(c));
  const fileFailed = report.loadErrors.some((file) => files.has(file));
  const members = canary.members.map(({ inEachFile: everyFile, inBinary: binary, file, failsAnywhere, ...member }) => {
    let result: CaseResult | "absent" = (file === undefined ? fileFailed : report.loadErrors.includes(file)) ? "errored" : "absent";
    const cases = mine.filter((m) => m.name === member.name);
    for (const c of cases) {
      if (result === "absent" || RANK[c.result] > RANK[result]) result = c.result;
    }
    const failed = member.expect === "pass" ? cases.find((c) => c.result === "failed" || c.result === "errored") : undefined;
    if (failed !== undefined && failsAnywhere === true) result = failed.result;
    // What a must-pass canary said when it failed (the registration canaries name the test and the file).
    const said = failed !== undefined && failed.result === result ? failed.message : undefined;
    return {
      ...member, result, ...(said !== undefined ? { message: said } : {}),
      ...(everyFile === true ? { inEachFile: inEachFile(member, mine, others) } : {}),
      ...(binary !== undefined ? { inBinary: inBinary(binary, others, report.loadErrors) } : {}),
    };
  });
  const mustFail = members.filter((m) => m.expect === "fail");
  let result: CanaryOutcome["result"] = "absent";
  for (const m of mustFail) if (m.result !== "absent" && (result === "absent" || RANK[m.result] > RANK[result])) result = m.result;
  const stripped: TestReport = {
    ...report,
    cases: others,
    duplicates: report.duplicates.filter((id) => !mine.some((c) => c.id === id)),
    loadErrors: report.loadErrors.filter((file) => !files.has(file)),
    ...(report.loadErrorMessages !== undefined ? { loadErrorMessages: report.loadErrorMessages.filter((m) => !files.has(m.file)) } : {}),
  };
  return {
    report: stripped,
    outcome: { name: canary.name, runners: [...canary.runners], result, othersRan: others.some((c) => c.result !== "skipped"), notes: [...canary.notes], members },
  };
}
