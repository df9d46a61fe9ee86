import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson, sha256Hex, type Evidence } from "../kernel/index.js";
import type { Policy, Task } from "../policy/schema.js";
import { profileDigest } from "../sandbox/index.js";
import type { SandboxProfile } from "../sandbox/types.js";
import type { Repository } from "../workspace/index.js";
import type { DiffFact } from "../workspace/types.js";
import { checkClaim, collectTargets, edgesClaim, redGreenClaim, regressionClaim } from "../measure/tests/index.js";
import type { Measurer } from "../measure/spawn-measurer.js";
import type { MeasureResult } from "../measure/plan.js";
import type { SuiteRun } from "../measure/report-types.js";
import { readBaseCache, writeBaseCache, type BaseCacheKey } from "./base-cache.js";
import { writeInside } from "./overlay.js";
import type { Stopwatch } from "./stopwatch.js";

export interface MeasureInput {
  repo: Repository;
  base: string;
  head: string;
  policy: Policy;
  task: Task | null;
  profile: SandboxProfile;
  digest: string;
  dataDir: string;
  clock: Stopwatch;
  facts: readonly DiffFact[];
  newFiles: readonly string[];
  frozenTestFiles: readonly string[];
  runTests: boolean;
  /** The measuring process, already started (it loads while the parent reads git). */
  measurer: Measurer;
  signal?: AbortSignal;
}

/**
 * Prepares the trees (git work stays in this process), hands the untrusted work to the keyless
 * measuring process, and turns its raw runs into evidence. Any failure to measure becomes failing
 * evidence with its reason: a judgment never ends without a verdict.
 */
export async function measureTests(input: MeasureInput): Promise<Evidence[]> {
  const { repo, policy, clock } = input;
  // A change that adds a file over the size limit already fails diff.safety; writing it out (a 2 GB
  // blob, say) for a test run would cost disk and time for nothing, so the runs are not made.
  const oversized = input.facts.filter((f) => f.status !== "D" && !f.submodule && f.size !== null && f.size > policy.limits.file_bytes);
  if (oversized.length > 0) {
    const names = oversized.slice(0, 3).map((f) => JSON.stringify(f.path)).join(", ");
    return measurementFailed(input, `not measured: the change adds ${oversized.length === 1 ? "a file" : `${oversized.length} files`} over the size limit of ${policy.limits.file_bytes} bytes (${names}${oversized.length > 3 ? ", …" : ""}); see diff.safety`);
  }
  const scratch = await mkdtemp(join(tmpdir(), "ranex-judge-"));
  try {
    const headDir = join(scratch, "head");
    const key: BaseCacheKey = {
      base: input.base, overlay: overlayDigest(input.facts, input.newFiles),
      policy: sha256Hex(canonicalJson(policy)), sandbox: profileDigest(input.profile),
    };
    const cachedBase = input.runTests ? await readBaseCache(input.dataDir, key) : null;
    let baseDir: string | null = null;
    try {
      await clock.time("materialise", async () => {
        await repo.materialise(input.head, headDir);
        if (input.runTests && cachedBase === null) {
          baseDir = join(scratch, "base");
          await repo.materialise(input.base, baseDir);
          for (const path of input.newFiles) {
            const bytes = await repo.readBlob(input.head, path, policy.limits.file_bytes);
            if (bytes !== null) await writeInside(baseDir, path, bytes);
          }
        }
      });
    } catch (err) {
      // A tree that cannot be written out safely (a `..` path, a write through a link) is a FAIL
      // with its reason, signed like any other, not a judgment that ends without a verdict.
      return measurementFailed(input, `not measured: the trees could not be laid out safely: ${(err as Error).message}`);
    }
    if (cachedBase !== null) clock.record("base-cached", 0);

    let result: MeasureResult;
    try {
      result = await clock.time("measure", () => input.measurer.measure({
        policy, profile: input.profile,
        headDir, baseDir, cachedBase, scratchDir: scratch, runTests: input.runTests,
        checks: policy.checks.map((c) => ({ name: c.name, run: c.run, timeout: c.timeout })),
      }, input.signal));
    } catch (err) {
      // An abort is not a measurement result: the caller decides what a superseded judgment says.
      if (input.signal?.aborted === true) throw err;
      return measurementFailed(input, `could not measure: ${(err as Error).message}`);
    }
    for (const [stage, ms] of Object.entries(result.timings)) clock.record(stage, ms);
    if (cachedBase === null && result.base !== null) await writeBaseCache(input.dataDir, key, result.base);
    return evidenceFrom(input, result);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function evidenceFrom(input: MeasureInput, result: MeasureResult): Evidence[] {
  const evidence: Evidence[] = result.checks.map((c) => checkClaim(input.digest, c.name, c.run));
  if (!input.runTests) return evidence;
  const base = result.base ?? missingRun("base");
  const head = result.head ?? missingRun("head");
  const targets = collectTargets(input.task?.targets ?? [], input.newFiles, head);
  evidence.push(regressionClaim(input.digest, base, head, targets, input.frozenTestFiles));
  evidence.push(redGreenClaim(input.digest, base, head, targets));
  if (input.task !== null && input.task.edges.length > 0) evidence.push(edgesClaim(input.digest, input.task, head));
  return evidence;
}

export function measurementFailed(input: Pick<MeasureInput, "runTests" | "task" | "policy" | "digest">, reason: string): Evidence[] {
  const names = input.runTests ? ["tests.regression", "tests.red_green"] : [];
  if (input.runTests && input.task !== null && input.task.edges.length > 0) names.push("edges.covered");
  for (const check of input.policy.checks) names.push(`check:${check.name}`);
  return names.map((claim) => ({ claim, subject: input.digest, outcome: "fail", reason, details: [] }));
}

function missingRun(label: "base" | "head"): SuiteRun {
  return { label, setup: null, command: null, report: null, reportError: `the ${label} run did not happen` };
}

/** Digest of the new test files laid over the base: their paths and blobs, nothing else. */
function overlayDigest(facts: readonly DiffFact[], newFiles: readonly string[]): string {
  const wanted = new Set(newFiles);
  const entries = facts.filter((f) => wanted.has(f.path)).map((f) => [f.path, f.newBlob]).sort();
  return sha256Hex(canonicalJson(entries));
}
