import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createSandbox, type Sandbox } from "../sandbox/index.js";
import type { RunResult } from "../sandbox/types.js";
import type { MeasurePlan, MeasureResult, RunSpec } from "./plan.js";
import type { RunName, SuiteRun } from "./report-types.js";
import { prepareDependencies, type PreparedDependencies } from "./deps/prepare.js";
import { prepareGoStd } from "./deps/go-std.js";
import { prepareRecordedRuns, runSuite } from "./run-suite.js";
import { earlyRepeatJobs, fileRepeats, runBaseAgain, runRepeats, type RepeatsDone } from "./repeats.js";
import { runMutants } from "./mutants.js";
import { decidedFailure } from "./decided.js";
import { openSealedPlan, sealedJobs } from "./sealed-runs.js";
import { prepareFifos } from "./provenance/fifos.js";
import { recordsCommand } from "./provenance/place.js";
import { filesSelectionFor, filesUnproven, selectionList } from "./select.js";

/** What reached the measuring process through its key pipe, never through the plan or environment. */
export interface MeasureSecrets {
  /** The sealing key's 32 secret bytes (tests.sealed), or null. */
  sealKey: Uint8Array | null;
}

/**
 * Runs everything untrusted a judgment needs: each run of the plan on its own tree (as many at once
 * as the plan allows, the most important first) and the policy's checks. Runs in the keyless
 * measuring process; returns raw runs, which the parent turns into evidence.
 */
export async function measure(plan: MeasurePlan, secrets: MeasureSecrets = { sealKey: null }): Promise<MeasureResult> {
  const sandbox = createSandbox(plan.profile);
  const timings: Record<string, number> = {};
  const timed = async <T>(stage: string, work: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      return await work();
    } finally {
      timings[stage] = Date.now() - t0;
    }
  };
  const checks: MeasureResult["checks"] = [];

  // The setup runs once (or not at all, on a cache hit) before any run; every run then skips its own.
  const tests = plan.policy.tests;
  // The runs' provenance records need FIFOs (./provenance/fifos.ts) and Python's hook compiled
  // (./provenance/python-bytecode.ts): made now, beside the setup.
  if (plan.runs.some((r) => r.cached === null) && recordsCommand(tests.command ?? "")) {
    prepareFifos(plan.scratchDir);
    prepareRecordedRuns(sandbox, tests.command ?? "");
  }
  let deps: PreparedDependencies | undefined;
  if (plan.deps !== undefined && tests.setup !== undefined && plan.runs.some((r) => r.cached === null)) {
    const { deps: depsPlan } = plan;
    const command = tests.setup;
    const { goStd } = depsPlan;
    // Before the setup, which builds above it (and is not timed with it).
    const gate = goStd === undefined ? undefined : await timed("go-std", () => prepareGoStd(sandbox, { ...goStd, commands: [tests.setup, tests.command] }));
    deps = await timed(depsPlan.setupTree === null ? "setup-cached" : "setup", () => prepareDependencies(sandbox, depsPlan, {
      command, network: tests.setup_network, timeoutSeconds: tests.timeout, env: {},
    }, gate));
  }
  const overlays = deps?.failure === null ? deps.overlays : [];

  // Checks run on a tree of their own, with the setup's dependencies: no test runs there, so code
  // under test cannot doctor what they see, and nothing they write reaches a measured tree.
  const runChecks = (tree: { treeDir: string; readonly: string[] }) => async (): Promise<void> => {
    for (const check of plan.checks) {
      const run: RunResult = await timed(`check:${check.name}`, () => sandbox.run({
        command: check.run, workdir: tree.treeDir, env: {}, timeoutMs: check.timeout * 1000, network: false, readonlyPaths: tree.readonly,
        treeOverlays: overlays, ...(deps?.failure === null && deps.lowers.length > 0 ? { treeLowers: deps.lowers } : {}),
      }));
      checks.push({ name: check.name, run });
    }
  };

  const runs: MeasureResult["runs"] = {};
  const todo = plan.runs.filter((r) => r.cached === null).sort((a, b) => a.priority - b.priority);
  for (const spec of plan.runs) if (spec.cached !== null) runs[spec.name] = spec.cached;
  // One pool of jobs, as many at once as the plan allows: the main runs by priority, the checks on
  // their own tree (right after the first run, so they overlap it), and then the early repeats
  // (./repeats.ts), so no core waits while another works.
  // Once a main run has decided the verdict (./decided.ts), no repeat or mutant is started any more.
  const stopped = (): string | null => decidedFailure(plan.policy.require, runs);
  // The base's repeats the base cache held count as made (src/judge/base-repeats-cache.ts).
  const early: RepeatsDone = {};
  const cachedBase = plan.repeats?.cached?.base;
  if (cachedBase !== undefined) early.base = { ...cachedBase, cached: true };
  // Each main run's result as it lands: base+new's repeats wait for head+new's (taken first, so never a deadlock).
  const landed = new Map<RunName, { promise: Promise<SuiteRun | undefined>; resolve: (run: SuiteRun | undefined) => void }>();
  for (const spec of todo) {
    let resolve: (run: SuiteRun | undefined) => void = () => undefined;
    const promise = new Promise<SuiteRun | undefined>((r) => { resolve = r; });
    landed.set(spec.name, { promise, resolve });
  }
  const jobs: (() => Promise<void>)[] = todo.map((spec) => async () => {
    let made: SuiteRun | undefined;
    try {
      made = await timed(`run:${spec.name}`, () => runOne(sandbox, plan, spec, deps));
    } finally {
      // Whatever happened, a run waiting for this one never waits for ever.
      landed.get(spec.name)?.resolve(made);
    }
    runs[spec.name] = made;
    // The PR's own tests are known by their files: when its run selected them, their repeats follow at once on its tree.
    if (made.selectedFiles === undefined) return;
    const green = spec.name === "base+new" ? await landed.get("head+new")?.promise : undefined;
    const own = await timed(`repeats:${spec.name}`, () => fileRepeats(sandbox, plan, made, spec, deps, stopped, green));
    if (own !== null) early[spec.name] = own;
  });
  const checksTree = plan.checksTree;
  if (checksTree !== null && plan.checks.length > 0) {
    jobs.splice(Math.min(1, jobs.length), 0, async () => {
      // Without the dependencies the setup should have made, the checks would fail for that reason alone.
      if (deps !== undefined && deps.failure !== null) {
        for (const check of plan.checks) checks.push({ name: check.name, run: notRun(`setup failed: ${deps.failure}`) });
        return;
      }
      await timed("checks", runChecks(checksTree));
    });
  }
  // The sealed runs come after the main ones in the pool; what they say is reduced before it is kept.
  let sealed: MeasureResult["sealed"];
  let finishSealed: (() => Promise<NonNullable<MeasureResult["sealed"]>>) | null = null;
  if (plan.sealed !== undefined) {
    const opened = await openSealedPlan(plan.sealed, secrets.sealKey);
    if ("opened" in opened) sealed = opened;
    else {
      const made = sealedJobs(sandbox, plan, opened, deps);
      jobs.push(...made.jobs.map((job, i) => async () => timed(`run:sealed-${i === 0 ? "head" : "base"}`, job)));
      finishSealed = made.finish;
    }
  }
  const earlyJobs = earlyRepeatJobs(sandbox, plan, deps, early, stopped);
  const earlyStart = Date.now();
  jobs.push(...earlyJobs.map((job) => async () => {
    await job();
    timings["repeats-early"] = Date.now() - earlyStart;
  }));
  const worker = async (): Promise<void> => {
    for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) await job();
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.parallel, jobs.length)) }, worker));

  if (finishSealed !== null) sealed = await finishSealed();
  const sealedPart = sealed === undefined ? {} : { sealed };
  const decided = stopped();
  if (decided !== null) {
    const repeats: MeasureResult["repeats"] = {};
    for (const [name, made] of Object.entries(early) as [keyof typeof early, { runs: SuiteRun[] }][]) repeats[name] = made.runs;
    return { runs, checks, timings, repeats, stopped: decided, ...sealedPart };
  }
  // Before the base's repeats, which use the same tree: whether the base itself names some tests anew each run.
  // Whether tests.stable repeats anything or not: tests.regression reads it (./tests/made-ids.ts).
  const again = plan.repeats !== undefined ? await timed("base-again", () => runBaseAgain(sandbox, plan, runs, deps, early)) : null;
  const againPart = again === null ? {} : { baseAgain: again };
  const repeats = await timed("repeats", () => runRepeats(sandbox, plan, runs, deps, early));
  if (plan.needed === undefined || plan.needed.mutants.length === 0) return { runs, checks, timings, repeats, ...againPart, ...sealedPart };
  const needed = await timed("mutants", () => runMutants(sandbox, plan, runs, deps));
  // Added up, not wall time: how much of the mutants' cost went to selected tests and to full suites.
  if (needed.selectedMs > 0) timings["mutants-selected"] = needed.selectedMs;
  if (needed.fullMs > 0) timings["mutants-full"] = needed.fullMs;
  return { runs, checks, timings, repeats, ...againPart, mutants: needed.mutants, mutantSelection: needed.selection, ...sealedPart };
}

async function runOne(sandbox: Sandbox, plan: MeasurePlan, spec: RunSpec, deps: PreparedDependencies | undefined): Promise<SuiteRun> {
  const tests = plan.policy.tests;
  const slug = spec.name.replace(/[^a-z]/g, "-");
  const suite = (tag: string, command: string, setup: string | undefined, extra: { env?: Record<string, string> } = {}, afterSetup?: () => Promise<void>): Promise<SuiteRun> => runSuite(sandbox, {
    label: spec.name, treeDir: spec.treeDir, readonly: spec.readonly, reportDir: join(plan.scratchDir, `report-${slug}${tag}`),
    // Every main run keeps a provenance record; the one that decides regression also gets the canaries.
    ...(spec.canary ? { canaryDir: join(plan.scratchDir, `gate-${slug}${tag}`) } : { recordDir: join(plan.scratchDir, `gate-${slug}${tag}`) }),
    setup, command, setupNetwork: tests.setup_network, timeout: tests.timeout, ...extra,
    ...(deps === undefined ? {} : { deps }), ...(spec.changed === undefined ? {} : { changed: spec.changed }),
  }, afterSetup);
  const files = spec.files ?? [];
  const listFile = join(plan.scratchDir, `report-${slug}`, "select-files.txt");
  const selection = filesSelectionFor(tests, files, listFile, spec.treeDir, plan.profile.backend);
  if (selection === null) return suite("", tests.command ?? "false", tests.setup);
  const run = await suite("", selection.command, tests.setup, { env: selection.env }, () => writeFile(listFile, selectionList(files)));
  // A run cut off (a timeout, a limit) is judged as such: the whole suite holds the same tests.
  if (run.command?.timedOut === true || run.command?.violation != null) return run;
  const why = await filesUnproven(selection, files, listFile, run);
  if (why === null) return { ...run, selectedFiles: [...files] };
  // Never an outcome: the whole suite runs on the same tree now (its setup already ran there).
  return { ...await suite("-whole", tests.command ?? "false", undefined), selectionLost: why };
}

function notRun(reason: string): RunResult {
  return {
    exitCode: null, signal: null, timedOut: false, durationMs: 0, outputTail: "", outputBytes: 0,
    outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: reason,
  };
}
