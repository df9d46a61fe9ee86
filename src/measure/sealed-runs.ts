// The runs of sealed acceptance tests (issue 20), in the measuring process only. It opens the box
// with the key it got through its pipe, lays the files over its two trees (the base, and the head
// without the PR's new test files), runs the suite on each like any other run (frozen paths and the
// sealed files read-only, the canary on the head), and reduces what happened to short ids, outcomes
// and run facts without output. Nothing else of these runs leaves this process: the reports, output
// and the plain files are removed before it writes its result.
import { releaseTree } from "../sandbox/tree-limit.js";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { openSealed, SealedError, sealKeyFromSecret, type SealedContents } from "../attest/index.js";
import { writeInside } from "../workspace/write-inside.js";
import type { Sandbox } from "../sandbox/index.js";
import type { PreparedDependencies } from "./deps/prepare.js";
import type { MeasurePlan, SealedOutcome, SealedPlan } from "./plan.js";
import type { SealedRunName, SuiteRun } from "./report-types.js";
import { runSuite } from "./run-suite.js";
import { summariseSealed } from "./sealed-summary.js";

export interface OpenedSealed {
  contents: SealedContents;
  paths: string[];
}

/** Opens the box; a box that does not open is an outcome with the maintainer's remedy, never a crash. */
export async function openSealedPlan(plan: SealedPlan, secretKey: Uint8Array | null): Promise<OpenedSealed | SealedOutcome> {
  if (secretKey === null || secretKey.length === 0) {
    return { opened: false, reason: "the measuring process got no sealing key: the gate's data dir has none (run `ranex keygen`)" };
  }
  try {
    const contents = await openSealed(plan.box, await sealKeyFromSecret(secretKey));
    if (contents.files.length === 0) return { opened: false, reason: "the sealed file holds no files: seal the acceptance tests again with `ranex seal`" };
    return { contents, paths: contents.files.map((f) => f.path).sort() };
  } catch (err) {
    if (err instanceof SealedError) return { opened: false, reason: err.message };
    return { opened: false, reason: "the sealed file could not be opened: the sealing key or the file is not usable; check it with `ranex seal --check`" };
  }
}

/** One job per side, for the measuring pool; `finish` reduces both to the outcome and cleans up. */
export function sealedJobs(sandbox: Sandbox, plan: MeasurePlan, opened: OpenedSealed, deps: PreparedDependencies | undefined): {
  jobs: (() => Promise<void>)[];
  finish: () => Promise<SealedOutcome>;
} {
  const sealed = plan.sealed as SealedPlan;
  const runs: Partial<Record<SealedRunName, SuiteRun>> = {};
  const failures: string[] = [];
  const side = (name: SealedRunName, tree: SealedPlan["head"], canary: boolean) => async (): Promise<void> => {
    try {
      for (const file of opened.contents.files) await writeInside(tree.treeDir, file.path, file.content);
      const tests = plan.policy.tests;
      const slug = name.replace(/[^a-z]/g, "-");
      runs[name] = await runSuite(sandbox, {
        label: name, treeDir: tree.treeDir, readonly: [...tree.readonly, ...opened.paths],
        reportDir: join(plan.scratchDir, `report-${slug}`),
        ...(canary ? { canaryDir: join(plan.scratchDir, `canary-${slug}`) } : {}),
        setup: tests.setup, command: tests.command ?? "false", setupNetwork: tests.setup_network, timeout: tests.timeout,
        ...(deps === undefined ? {} : { deps }), ...(tree.changed === undefined ? {} : { changed: tree.changed }),
      });
    } catch {
      // The error could name a sealed path: the outcome says only that the run could not be made.
      failures.push(`the ${name} run could not be made`);
    }
  };
  return {
    jobs: [side("sealed-head", sealed.head, true), side("sealed-base", sealed.base, false)],
    finish: async () => {
      // The plain files, reports and output go now: nothing of them is in the result file. The
      // trees' write overlays (sandbox/tree-limit.ts) are unmounted first, or their folders are busy.
      releaseTree(sealed.base.treeDir);
      releaseTree(sealed.head.treeDir);
      await Promise.all([sealed.base.treeDir, sealed.head.treeDir, join(plan.scratchDir, "report-sealed-base"), join(plan.scratchDir, "report-sealed-head")]
        .map((dir) => rm(dir, { recursive: true, force: true })));
      const outcome = summariseSealed(opened.contents.idKey, opened.paths, runs["sealed-base"] ?? null, runs["sealed-head"] ?? null);
      if (outcome.opened && failures.length > 0) outcome.problems.unshift(...failures);
      return outcome;
    },
  };
}
