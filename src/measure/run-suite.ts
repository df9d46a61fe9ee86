import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { RunResult } from "../sandbox/types.js";
import type { Sandbox } from "../sandbox/index.js";
import { readJunitReport } from "./junit-read.js";
import { nodeReporterFor, reportersDirFor } from "./reporters.js";
import type { SuiteRun } from "./report-types.js";

export interface SuiteSpec {
  label: "base" | "head";
  treeDir: string;
  /** A fresh directory for this run's report: a report left by anything else is never read. */
  reportDir: string;
  setup: string | undefined;
  command: string;
  setupNetwork: boolean;
  /** Seconds for setup plus command. */
  timeout: number;
}

/** Setup (when the policy has one), then the test command, in the sandbox; then the JUnit report. */
export async function runSuite(sandbox: Sandbox, spec: SuiteSpec, afterSetup?: () => Promise<void>): Promise<SuiteRun> {
  await mkdir(spec.reportDir, { recursive: true });
  const junit = join(spec.reportDir, "junit.xml");
  const env = { RANEX_JUNIT: junit, RANEX_NODE_REPORTER: nodeReporterFor(sandbox.profile.backend), RANEX_REPORTERS: reportersDirFor(sandbox.profile.backend) };
  const budgetMs = spec.timeout * 1000;
  const started = Date.now();

  let setup: RunResult | null = null;
  if (spec.setup !== undefined) {
    setup = await sandbox.run({
      command: spec.setup, workdir: spec.treeDir, outdir: spec.reportDir, env, timeoutMs: budgetMs, network: spec.setupNetwork,
    });
    if (setup.exitCode !== 0) {
      const why = setup.timedOut ? `setup timed out after ${spec.timeout} s` : setup.violation ?? `setup exited with ${describeExit(setup)}`;
      return { label: spec.label, setup, command: null, report: null, reportError: why };
    }
  }
  if (afterSetup !== undefined) await afterSetup();
  const remaining = Math.max(1000, budgetMs - (Date.now() - started));
  const command = await sandbox.run({
    command: spec.command, workdir: spec.treeDir, outdir: spec.reportDir, env, timeoutMs: remaining, network: false,
  });
  const read = await readJunitReport(junit, spec.treeDir);
  if ("error" in read) return { label: spec.label, setup, command, report: null, reportError: read.error };
  return { label: spec.label, setup, command, report: read.report, reportError: null };
}

export function describeExit(run: RunResult): string {
  if (run.timedOut) return "a timeout";
  if (run.signal !== null) return `signal ${run.signal}`;
  return `code ${run.exitCode ?? "unknown"}`;
}
