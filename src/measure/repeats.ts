// The runs after the main ones: repeats of the target tests (tests.stable) and of the tests that
// passed on base and failed on head (regression suspects: flaky on base is not the PR's doing). Runs
// in the measuring process, which alone knows the main results; diff.needed's mutants are mutants.ts.
//
// A repeat reuses the tree of the run it repeats, one repeat after another on that tree: a test that
// leaves state behind in its own tree and then answers differently is exactly the flakiness the claim
// is about, and no copy of a large tree is made. Different trees repeat in parallel.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Sandbox } from "../sandbox/index.js";
import type { MeasurePlan } from "./plan.js";
import type { RunName, SuiteRun } from "./report-types.js";
import type { PreparedDependencies } from "./deps/prepare.js";
import { runSuite } from "./run-suite.js";
import { selectionFor, selectionList } from "./select.js";
import { collectTargets } from "./tests/targets.js";
import { isGreen } from "./tests/run-facts.js";

/** Which ids each run's tree must repeat: targets on the sides they are read from, and suspects. */
export function repeatIds(taskTargets: readonly string[], newFiles: readonly string[], runs: Partial<Record<RunName, SuiteRun>>): Map<RunName, string[]> {
  const ids = new Map<RunName, Set<string>>();
  const add = (name: RunName, id: string): void => {
    if (runs[name] === undefined) return;
    ids.set(name, (ids.get(name) ?? new Set()).add(id));
  };
  const head = runs.head;
  if (head === undefined) return new Map();
  const headNew = runs["head+new"] ?? null;
  for (const target of collectTargets(taskTargets, newFiles, head, headNew)) {
    const own = target.origin === "new-file" && headNew !== null;
    add(own ? "base+new" : "base", target.id);
    add(own ? "head+new" : "head", target.id);
  }
  // Passed on base, not green on head: repeated on both sides, so a flaky base is not blamed on the PR.
  const onHead = new Map((head.report?.cases ?? []).map((c) => [c.id, c]));
  for (const before of runs.base?.report?.cases ?? []) {
    const after = onHead.get(before.id);
    if (isGreen(before) && after !== undefined && !isGreen(after)) {
      add("base", before.id);
      add("head", before.id);
    }
  }
  return new Map([...ids].map(([name, set]) => [name, [...set].sort()]));
}

/** Runs `plan.repeats.count` repeats on each tree that has ids to repeat; one worker per tree. */
export async function runRepeats(sandbox: Sandbox, plan: MeasurePlan, runs: Partial<Record<RunName, SuiteRun>>, deps?: PreparedDependencies): Promise<Partial<Record<RunName, SuiteRun[]>>> {
  const repeats = plan.repeats;
  const out: Partial<Record<RunName, SuiteRun[]>> = {};
  if (repeats === undefined || repeats.count < 1) return out;
  const todo = [...repeatIds(repeats.taskTargets, repeats.newFiles, runs)].filter(([name]) => repeats.trees[name] !== undefined);
  const worker = async (): Promise<void> => {
    for (let job = todo.shift(); job !== undefined; job = todo.shift()) {
      const [name, ids] = job;
      const tree = repeats.trees[name]!;
      const done: SuiteRun[] = [];
      for (let i = 1; i <= repeats.count; i++) {
        // A tree the base cache answered for never had its setup: the first repeat runs it, unless the
        // once-only setup (deps) serves every run anyway.
        done.push(await selectedRun(sandbox, plan, name, tree, ids, `r${i}`, deps === undefined && tree.setupFirst && i === 1, deps));
      }
      out[name] = done;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.parallel, todo.length)) }, worker));
  return out;
}

async function selectedRun(
  sandbox: Sandbox, plan: MeasurePlan, name: RunName, tree: { treeDir: string; readonly: string[] }, ids: readonly string[], tag: string, withSetup: boolean,
  deps: PreparedDependencies | undefined,
): Promise<SuiteRun> {
  const tests = plan.policy.tests;
  const reportDir = join(plan.scratchDir, `report-${name.replace(/[^a-z]/g, "-")}-${tag}`);
  const listFile = join(reportDir, "select.txt");
  const selection = ids.length > 0 ? selectionFor(tests, ids, listFile, plan.profile.backend) : null;
  const run = await runSuite(sandbox, {
    label: name, treeDir: tree.treeDir, readonly: tree.readonly, reportDir,
    setup: withSetup ? tests.setup : undefined, command: selection?.command ?? tests.command ?? "false",
    setupNetwork: tests.setup_network, timeout: tests.timeout, env: selection?.env, ...(deps === undefined ? {} : { deps }),
  }, selection === null ? undefined : () => writeFile(listFile, selectionList(ids)));
  return run;
}
