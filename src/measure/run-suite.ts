import { mkdir, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunResult } from "../sandbox/types.js";
import type { Sandbox } from "../sandbox/index.js";
import { readJunitReport } from "./junit-read.js";
import { crossCheckFor } from "../runners/index.js";
import { nodeReporterFor, reportersDirFor } from "./reporters.js";
import type { RunName, SuiteRun } from "./report-types.js";
import { placeCanary, placeFileCanary, stripCanary } from "./canary.js";
import { placeProvenance, prepareProvenance, type PlacedProvenance } from "./provenance/place.js";
import { betweenPluginEnv } from "./provenance/python-between-tests.js";
import { emptyRecord, parseRecord } from "./provenance/record.js";
import type { RunProvenance } from "./provenance/judge.js";
import type { PreparedDependencies } from "./deps/prepare.js";

export interface SuiteSpec {
  label: RunName;
  treeDir: string;
  /** Paths relative to treeDir that stay read-only (frozen tests, harness, policy). */
  readonly: string[];
  /** Where to write this run's canaries and provenance hooks, or undefined for a run without a canary. */
  canaryDir?: string;
  /** Where to write the provenance hooks of a run without a canary (the base runs, the PR's own). */
  recordDir?: string;
  /** A fresh directory for this run's report: a report left by anything else is never read. */
  reportDir: string;
  setup: string | undefined;
  command: string;
  setupNetwork: boolean;
  /** Seconds for setup plus command. */
  timeout: number;
  /** Added to the test command's environment (a test selection: src/measure/select.ts). */
  env?: Record<string, string>;
  /**
   * The dependencies a once-only setup prepared for every run of the judgment: this run skips its
   * own setup and sees them read-only. Without it (`ranex run-at`, one run alone) `setup` runs here.
   */
  deps?: PreparedDependencies;
  /**
   * The paths of this tree the pull request changed or added (its diff, renames' new paths), for the
   * registration watch (src/runners/registration-guard.ts): none on the base, the PR's new test files
   * on base+new. Absent (a run the judgment gave no diff to): every tree file the run can write is
   * held to be the PR's, the stricter rule.
   */
  changed?: readonly string[];
}

/** Setup (the prepared dependencies, or its own), then the test command, in the sandbox; then the JUnit report. */
export async function runSuite(sandbox: Sandbox, spec: SuiteSpec, afterSetup?: () => Promise<void>): Promise<SuiteRun> {
  await mkdir(spec.reportDir, { recursive: true });
  const junit = join(spec.reportDir, "junit.xml");
  // RANEX_REPORT names the same file for runners whose report is not JUnit (`go test -json > "$RANEX_REPORT"`).
  const env = { RANEX_JUNIT: junit, RANEX_REPORT: junit, RANEX_NODE_REPORTER: nodeReporterFor(sandbox.profile.backend), RANEX_REPORTERS: reportersDirFor(sandbox.profile.backend) };
  const budgetMs = spec.timeout * 1000;
  const started = Date.now();

  let setup: RunResult | null = null;
  const deps = spec.deps;
  // A miss records its own install too: a base run read back from the base cache later is a hit on it.
  const installed = deps?.installed ?? null;
  const depsFact = deps === undefined ? {} : { deps: { key: deps.key, hit: deps.hit, setupMs: deps.setup?.durationMs ?? null, ...(installed === null ? {} : { installed }), entries: deps.overlays.map((o) => o.path), ...(deps.goStd === undefined ? {} : { goStd: deps.goStd }) } };
  if (deps !== undefined && deps.failure !== null) {
    // The one setup failed: every run says so, with the setup's own exit and output.
    return { label: spec.label, setup: deps.setup, command: null, report: null, reportError: deps.failure, ...depsFact };
  }
  if (deps === undefined && spec.setup !== undefined) {
    setup = await sandbox.run({
      command: spec.setup, workdir: spec.treeDir, outdir: spec.reportDir, env, timeoutMs: budgetMs, network: spec.setupNetwork,
      readonlyPaths: spec.readonly,
    });
    if (setup.exitCode !== 0) {
      const why = setup.timedOut ? `setup timed out after ${spec.timeout} s` : setup.violation ?? `setup exited with ${describeExit(setup)}`;
      return { label: spec.label, setup, command: null, report: null, reportError: why };
    }
  }
  if (afterSetup !== undefined) await afterSetup();
  // After setup, so nothing setup runs can see or remove them. One read-only folder of the gate's
  // per run holds the canary preload, the provenance hooks and the record's FIFO.
  const gateDir = spec.canaryDir ?? spec.recordDir;
  // It is mounted whenever it is named, whatever the canary and the record put in it.
  if (gateDir !== undefined) await mkdir(gateDir, { recursive: true });
  const inSandbox = sandbox.profile.backend === "bwrap";
  const seenAs = gateDir === undefined ? "" : inSandbox ? GATE_MOUNT : gateDir;
  // The canary run gets the whole family; every other main run the canaries that run inside each test
  // file (jest's), where the PR's own test files could neuter `expect` for themselves.
  // The in-file canaries hold the frozen test files' registration to the frozen paths (issue 19).
  // What the PR changed in this tree, and since when a tree file changed is one a run wrote.
  const tree = {
    treeRoot: inSandbox ? SANDBOX_TREE : spec.treeDir, frozen: spec.readonly,
    ...(spec.changed === undefined ? {} : { changed: { paths: spec.changed, since: stampOf(spec.treeDir) } }),
  };
  const canary = spec.canaryDir !== undefined ? await placeCanary(spec.command, spec.treeDir, spec.canaryDir, seenAs, tree)
    : spec.recordDir !== undefined ? await placeFileCanary(spec.command, spec.treeDir, spec.recordDir, seenAs, tree) : null;
  const provenance = gateDir === undefined ? null
    : await placeProvenance(spec.command, gateDir, seenAs, inSandbox ? SANDBOX_TREE : spec.treeDir, env.RANEX_NODE_REPORTER);
  const gateEnv = mergedEnv(spec.env ?? {}, canary?.env ?? {}, provenance);
  const remaining = Math.max(1000, budgetMs - (Date.now() - started));
  let command: RunResult;
  let recorded: RunProvenance | null = null;
  try {
    command = await sandbox.run({
      command: spec.command, workdir: spec.treeDir, outdir: spec.reportDir, env: { ...env, ...spec.env, ...gateEnv }, timeoutMs: remaining, network: false,
      readonlyPaths: [...spec.readonly, ...canary?.treeFiles ?? [], ...canary?.edited.map((e) => e.file) ?? []],
      extraMounts: gateDir !== undefined && inSandbox ? [{ host: gateDir, sandbox: GATE_MOUNT }] : [],
      treeOverlays: deps?.overlays ?? [],
      ...(deps === undefined || deps.lowers.length === 0 ? {} : { treeLowers: deps.lowers }),
    });
  } finally {
    // The pipe is read to its end whatever happened to the run.
    recorded = provenance === null ? null : await recordOf(provenance, inSandbox ? SANDBOX_TREE : spec.treeDir);
  }
  const read = crossChecked(await readJunitReport(junit, spec.treeDir, spec.command), spec.command, command);
  // The tree may be run again (tests.stable's repeats): the canary's test file leaves with this run.
  for (const file of canary?.treeFiles ?? []) await unlink(join(spec.treeDir, file)).catch(() => undefined);
  for (const { file, text } of canary?.edited ?? []) await writeFile(join(spec.treeDir, file), text);
  const withRecord = recorded === null ? {} : { provenance: recorded };
  const noReport = (error: string): SuiteRun => ({
    label: spec.label, setup, command, report: null, reportError: error, ...depsFact, ...withRecord,
    ...(canary !== null ? { canary: { name: canary.name, runners: canary.runners, result: "absent", othersRan: false, notes: canary.notes } } : {}),
  });
  if ("error" in read) return noReport(read.error);
  if (canary === null) return { label: spec.label, setup, command, report: read.report, reportError: null, ...depsFact, ...withRecord };
  const { report, outcome } = stripCanary(read.report, canary);
  return { label: spec.label, setup, command, report, reportError: null, canary: outcome, ...depsFact, ...withRecord };
}

/** The report compared with what the runner printed (Maven's console), before the canaries leave it. */
function crossChecked(read: Awaited<ReturnType<typeof readJunitReport>>, testCommand: string, run: RunResult): Awaited<ReturnType<typeof readJunitReport>> {
  if ("error" in read) return read;
  return { report: crossCheckFor(testCommand, read.report, { text: run.outputTail, truncated: run.outputTruncated }) };
}

/**
 * When the gate first handed this tree to a run (after its setup): a tree file changed later was
 * written by a run. A tree run again (the whole suite after a selection it could not prove) keeps its
 * first stamp, so what the first run wrote never passes for the tree as git laid it out.
 */
const stamps = new Map<string, number>();
function stampOf(treeDir: string): number {
  const first = stamps.get(treeDir);
  if (first !== undefined) return first;
  const now = Date.now();
  stamps.set(treeDir, now);
  return now;
}

/** Where the run's gate folder is mounted in the sandbox, and where the tree is. */
const GATE_MOUNT = "/opt/ranex/run";
const SANDBOX_TREE = "/work";

/**
 * Starts what every recorded run of `command` in this sandbox shares (Python's hook compiled ahead),
 * without waiting. In the sandbox each run sees its gate folder and tree at the same paths.
 */
export function prepareRecordedRuns(sandbox: Sandbox, command: string): void {
  if (sandbox.profile.backend === "bwrap") prepareProvenance(command, GATE_MOUNT, SANDBOX_TREE);
}

/** PYTHONPATH and NODE_OPTIONS as the run gets them: the gate's entries first, the selection's kept. */
function mergedEnv(own: Record<string, string>, canary: Record<string, string>, provenance: PlacedProvenance | null): Record<string, string> {
  const merged: Record<string, string> = { ...canary };
  const python = [provenance?.pythonPath, own.PYTHONPATH].filter((p): p is string => p !== undefined && p !== null && p !== "");
  if (python.length > 0) merged.PYTHONPATH = python.join(":");
  // The hook's per-test check is a pytest plugin it builds in each process (./provenance/python-between-tests.ts).
  if (provenance?.pythonPath !== undefined && provenance.pythonPath !== null) merged.PYTEST_PLUGINS = betweenPluginEnv(own.PYTEST_PLUGINS);
  const node = [provenance?.nodeOptions, canary.NODE_OPTIONS, own.NODE_OPTIONS].filter((p): p is string => p !== undefined && p !== null && p !== "");
  if (node.length > 0) merged.NODE_OPTIONS = node.join(" ");
  return merged;
}

async function recordOf(provenance: PlacedProvenance, treeRoot: string): Promise<RunProvenance> {
  if (provenance.pipe === null) return { placed: provenance.placed, notes: provenance.notes, record: emptyRecord() };
  const { text, bytes } = await provenance.pipe.finish();
  return { placed: provenance.placed, notes: provenance.notes, record: parseRecord(text, treeRoot, bytes) };
}

export function describeExit(run: RunResult): string {
  if (run.timedOut) return "a timeout";
  if (run.signal !== null) return `signal ${run.signal}`;
  return `code ${run.exitCode ?? "unknown"}`;
}
