// The canary: a test with a random name that must fail, added to the run that decides regression
// and task targets. A runner (or code under test) that rewrites results wholesale reports it passed,
// which no honest run can do. It lives outside the tree the PR controls (a read-only mount, or a
// read-only file the gate writes into the run's own copy of the tree), and its name is new each run.
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { CANARY_RUNNERS, canaryLabel, runnersIn } from "../runners/index.js";
import type { CaseResult, CanaryOutcome, TestReport } from "./report-types.js";

/** A runner's name as the canary's evidence shows it ("pytest", "node:test", "vitest", "jest", ...). */
export type CanaryRunner = string;

export interface PlacedCanary {
  token: string;
  name: string;
  runners: CanaryRunner[];
  /** Added to the test command's environment. */
  env: Record<string, string>;
  extraMounts: { host: string; sandbox: string }[];
  /** Files written into the run's tree (relative paths); they are read-only in the run. */
  treeFiles: string[];
  /** Why the canary could not be given to a runner the command names. */
  notes: string[];
}

const MESSAGE = "ranex canary: this test must fail";

/** The runners a test command starts, as far as its text tells. */
export function runnersOf(command: string): CanaryRunner[] {
  return runnersIn(command).map(canaryLabel);
}

/**
 * Writes the canary for the runners `command` names, each the way its module says (src/runners):
 * pytest gets a plugin (`-p`, found through PYTHONPATH) that appends a failing item; node:test a
 * preload that registers a failing test in the first test file's process; vitest and jest a test
 * file at the tree's root; go a `_test.go` file in a package folder.
 */
export async function placeCanary(command: string, treeDir: string, hostDir: string, inSandbox: boolean): Promise<PlacedCanary> {
  const token = randomBytes(12).toString("hex");
  const name = `test_ranex_canary_${token}`;
  const placed: PlacedCanary = { token, name, runners: [], env: {}, extraMounts: [], treeFiles: [], notes: [] };
  const runners = runnersIn(command);
  if (runners.length === 0) {
    placed.notes.push(`the test command names no runner the gate can give a canary to (${CANARY_RUNNERS})`);
    return placed;
  }
  await mkdir(hostDir, { recursive: true });
  const seenAs = inSandbox ? `/opt/ranex/canary-${token}` : hostDir;
  let mounted = false;
  for (const runner of runners) {
    const given = await runner.canary({ command, token, name, message: MESSAGE, treeDir, hostDir, seenAs });
    if ("note" in given) {
      placed.notes.push(given.note);
      continue;
    }
    Object.assign(placed.env, given.env ?? {});
    placed.treeFiles.push(...given.treeFiles ?? []);
    if (given.mountHostDir === true) mounted = true;
    placed.runners.push(canaryLabel(runner));
  }
  if (mounted && inSandbox) placed.extraMounts.push({ host: hostDir, sandbox: seenAs });
  return placed;
}

const RANK: Record<CaseResult, number> = { failed: 0, errored: 0, skipped: 1, passed: 2 };

/**
 * Takes the canary out of a report, so it is never a regression, a target or a vanished test, and
 * says what became of it. Reported more than once (a parallel runner), the most suspicious result
 * stands.
 */
export function stripCanary(report: TestReport, canary: Pick<PlacedCanary, "token" | "name" | "runners" | "notes">): { report: TestReport; outcome: CanaryOutcome } {
  const mine = report.cases.filter((c) => c.id.includes(canary.token) || c.name.includes(canary.token));
  const others = report.cases.filter((c) => !mine.includes(c));
  let result: CanaryOutcome["result"] = "absent";
  for (const c of mine) if (result === "absent" || RANK[c.result] > RANK[result as CaseResult]) result = c.result;
  const stripped: TestReport = {
    ...report,
    cases: others,
    duplicates: report.duplicates.filter((id) => !id.includes(canary.token)),
    loadErrors: report.loadErrors.filter((file) => !file.includes(canary.token)),
    ...(report.loadErrorMessages !== undefined
      ? { loadErrorMessages: report.loadErrorMessages.filter((m) => !m.file.includes(canary.token)) }
      : {}),
  };
  return {
    report: stripped,
    outcome: { name: canary.name, runners: [...canary.runners], result, othersRan: others.some((c) => c.result !== "skipped"), notes: [...canary.notes] },
  };
}
