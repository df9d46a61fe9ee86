// The canary: a test with a random name that must fail, added to the run that decides regression
// and task targets. A runner (or code under test) that rewrites results wholesale reports it passed,
// which no honest run can do. It lives outside the tree the PR controls (a read-only mount, or a
// read-only file the gate writes into the run's own copy of the tree), and its name is new each run.
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CaseResult, CanaryOutcome, TestReport } from "./report-types.js";

export type CanaryRunner = "pytest" | "node:test" | "vitest" | "jest";

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
  const found: CanaryRunner[] = [];
  if (/\bpy\.?test\b/.test(command)) found.push("pytest");
  if (/\bnode(?:js)?\b[^|;&]*\s--test\b/.test(command)) found.push("node:test");
  // A vitest and a jest canary in one tree would each break the other runner's collection.
  if (/\bvitest\b/.test(command)) found.push("vitest");
  else if (/\bjest\b/.test(command)) found.push("jest");
  return found;
}

/**
 * Writes the canary for the runners `command` names: pytest gets a plugin (`-p`, found through
 * PYTHONPATH) that appends a failing item; node:test a preload that registers a failing test in the
 * first test file's process; vitest and jest a test file at the tree's root.
 */
export async function placeCanary(command: string, treeDir: string, hostDir: string, inSandbox: boolean): Promise<PlacedCanary> {
  const token = randomBytes(12).toString("hex");
  const name = `test_ranex_canary_${token}`;
  const placed: PlacedCanary = { token, name, runners: [], env: {}, extraMounts: [], treeFiles: [], notes: [] };
  const runners = runnersOf(command);
  if (runners.length === 0) {
    placed.notes.push("the test command names no runner the gate can give a canary to (pytest, node --test, vitest, jest)");
    return placed;
  }
  await mkdir(hostDir, { recursive: true });
  const seenAs = inSandbox ? `/opt/ranex/canary-${token}` : hostDir;
  let mounted = false;
  for (const runner of runners) {
    if (runner === "pytest") {
      // A command that extends PYTHONPATH (`PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}"`) keeps the canary's entry.
      if (/\bPYTEST_ADDOPTS\b/.test(command) || (/\bPYTHONPATH\b/.test(command) && !/\$\{?PYTHONPATH\b/.test(command))) {
        placed.notes.push("pytest: the command sets PYTHONPATH or PYTEST_ADDOPTS itself, so the canary plugin was not added");
        continue;
      }
      const module = `ranex_canary_${token}`;
      await writeFile(join(hostDir, `${module}.py`), pytestPlugin(name));
      placed.env.PYTHONPATH = seenAs;
      placed.env.PYTEST_ADDOPTS = `-p ${module}`;
      mounted = true;
    } else if (runner === "node:test") {
      if (/\bNODE_OPTIONS\b/.test(command)) {
        placed.notes.push("node:test: the command sets NODE_OPTIONS itself, so the canary preload was not added");
        continue;
      }
      await writeFile(join(hostDir, "canary.cjs"), nodePreload(name, token));
      placed.env.NODE_OPTIONS = `--require ${seenAs}/canary.cjs`;
      mounted = true;
    } else {
      const file = runner === "vitest" ? `ranex-canary-${token}.test.mjs` : `ranex-canary-${token}.test.js`;
      const body = runner === "vitest"
        ? `import { test } from "vitest";\ntest(${JSON.stringify(name)}, () => { throw new Error(${JSON.stringify(MESSAGE)}); });\n`
        : `test(${JSON.stringify(name)}, () => { throw new Error(${JSON.stringify(MESSAGE)}); });\n`;
      await writeFile(join(treeDir, file), body, { flag: "wx" });
      placed.treeFiles.push(file);
    }
    placed.runners.push(runner);
  }
  if (mounted && inSandbox) placed.extraMounts.push({ host: hostDir, sandbox: seenAs });
  return placed;
}

function pytestPlugin(name: string): string {
  return `# Added by Ranex Gate: one test that must fail. Reported passed or skipped, the run is not believed.
import pytest


class RanexCanary(pytest.Item):
    def runtest(self):
        raise AssertionError(${JSON.stringify(MESSAGE)})

    def repr_failure(self, excinfo, style=None):
        return ${JSON.stringify(MESSAGE)}

    def reportinfo(self):
        return self.path, None, self.name


# It takes the place of one of the collected tests (chosen at random), so the hooks and conftest
# files that apply to that test apply to it too.
@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    import random
    path = random.choice(items).path if items else session.path
    items.append(RanexCanary.from_parent(session, name=${JSON.stringify(name)}, path=path))
`;
}

// Every node:test file runs in a process of its own; only the first to take the lock (in the run's
// private /tmp) registers the canary, so it is reported once.
function nodePreload(name: string, token: string): string {
  return `"use strict";
// Added by Ranex Gate: one test that must fail. Reported passed or skipped, the run is not believed.
if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const fs = require("node:fs");
  const path = require("node:path");
  const os = require("node:os");
  let first = false;
  try {
    fs.closeSync(fs.openSync(path.join(os.tmpdir(), ${JSON.stringify(`ranex-canary-${token}.lock`)}), "wx"));
    first = true;
  } catch {}
  if (first) require("node:test").test(${JSON.stringify(name)}, () => { throw new Error(${JSON.stringify(MESSAGE)}); });
}
`;
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
