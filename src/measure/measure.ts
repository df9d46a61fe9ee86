import { join } from "node:path";
import { createSandbox } from "../sandbox/index.js";
import type { RunResult } from "../sandbox/types.js";
import type { MeasurePlan, MeasureResult } from "./plan.js";
import { runSuite } from "./run-suite.js";

/**
 * Runs everything untrusted a judgment needs: the head (setup, extra checks, tests) and the base with
 * the PR's new test files overlaid, at the same time when two cores allow. Runs in the keyless
 * measuring process; returns raw runs, which the parent turns into evidence.
 */
export async function measure(plan: MeasurePlan): Promise<MeasureResult> {
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
  const tests = plan.policy.tests;
  const checks: MeasureResult["checks"] = [];

  // Checks run after setup and before the tests, so code under test cannot doctor what they see.
  const runChecks = async (): Promise<void> => {
    for (const check of plan.checks) {
      const run: RunResult = await timed(`check:${check.name}`, () => sandbox.run({
        command: check.run, workdir: plan.headDir, env: {}, timeoutMs: check.timeout * 1000, network: false,
      }));
      checks.push({ name: check.name, run });
    }
  };

  const headWork = async (): Promise<MeasureResult["head"]> => {
    if (!plan.runTests || tests.command === undefined) {
      await runChecks();
      return null;
    }
    return timed("head", () => runSuite(sandbox, {
      label: "head", treeDir: plan.headDir, reportDir: join(plan.scratchDir, "report-head"),
      setup: tests.setup, command: tests.command as string, setupNetwork: tests.setup_network, timeout: tests.timeout,
    }, runChecks));
  };
  const baseWork = async (): Promise<MeasureResult["base"]> => {
    if (!plan.runTests || tests.command === undefined) return null;
    if (plan.cachedBase !== null || plan.baseDir === null) return plan.cachedBase;
    const baseDir = plan.baseDir;
    return timed("base", () => runSuite(sandbox, {
      label: "base", treeDir: baseDir, reportDir: join(plan.scratchDir, "report-base"),
      setup: tests.setup, command: tests.command as string, setupNetwork: tests.setup_network, timeout: tests.timeout,
    }));
  };

  const [head, base] = await Promise.all([headWork(), baseWork()]);
  // A setup that failed on head never reached the checks: say so rather than skip them silently.
  if (head !== null && head.command === null && checks.length === 0) {
    for (const check of plan.checks) checks.push({ name: check.name, run: notRun(`setup failed: ${head.reportError ?? "unknown"}`) });
  }
  return { base, head, checks, timings };
}

function notRun(reason: string): RunResult {
  return {
    exitCode: null, signal: null, timedOut: false, durationMs: 0, outputTail: "", outputBytes: 0,
    outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: reason,
  };
}
