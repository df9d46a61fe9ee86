import { SANDBOX_CLAIM } from "../kernel/index.js";
import { TEST_CLAIMS, type Policy, type Task } from "../policy/schema.js";
import { REPORTERS_DIR, SANDBOX_REPORTERS_DIR } from "../measure/reporters.js";
import type { SandboxProfile } from "../sandbox/types.js";

/**
 * The claims a judgment requires: the policy's `require`, one `check:<name>` per extra check, and
 * `edges.covered` when the task declares a behaviour graph. With `sandbox: none`, the failing
 * `sandbox.isolated` claim makes CANDIDATE impossible, as the policy author was warned.
 */
export function requiredClaims(policy: Policy, task: Task | null): string[] {
  const names = [...policy.require];
  for (const check of policy.checks) names.push(`check:${check.name}`);
  if (task !== null && task.edges.length > 0) names.push("edges.covered");
  if (policy.sandbox.backend === "none") names.push(SANDBOX_CLAIM);
  return [...new Set(names)];
}

export function profileFor(policy: Policy): SandboxProfile {
  return {
    backend: policy.sandbox.backend,
    readonly: [...policy.sandbox.readonly],
    ...(policy.toolchain.path.length > 0 ? { toolchain: [...policy.toolchain.path] } : {}),
    // The gate's own report writers (src/measure/reporters.ts) are always there, read-only.
    mounts: [{ host: REPORTERS_DIR, sandbox: SANDBOX_REPORTERS_DIR }],
    memoryBytes: policy.sandbox.memory_mb * 1024 * 1024,
    maxProcesses: policy.sandbox.pids,
    outputLimitBytes: policy.sandbox.output_kib * 1024,
    scratchBytes: policy.sandbox.scratch_mb * 1024 * 1024,
    ...(policy.sandbox.tree_mb === undefined ? {} : { treeBytes: policy.sandbox.tree_mb * 1024 * 1024 }),
  };
}

/** Whether any required claim needs the test suite to run at all. */
export function needsTestRuns(required: readonly string[]): boolean {
  return required.some((c) => TEST_CLAIMS.includes(c));
}
