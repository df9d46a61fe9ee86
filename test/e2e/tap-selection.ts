import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parsePolicy } from "../../src/policy/index.js";
import { REPORTERS_DIR, SANDBOX_REPORTERS_DIR } from "../../src/measure/reporters.js";
import { runSuite } from "../../src/measure/run-suite.js";
import { selectionFor, selectionList, selectionUnproven } from "../../src/measure/select.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { PROFILE } from "../sandbox/helpers.js";
import { git, tempDir } from "../helpers/git-repo.js";
import type { InitSeen } from "./ecosystem-case.js";

// A repeat of tests.stable as the measuring process runs it (src/measure/repeats.ts), with the real
// runner init's setup installed from the registry: the policy's command with the TAP launcher's
// selection, in the sandbox, the cached node_modules read-only; then whether the selection proves
// itself (src/measure/select.ts). One run per selection, no judgment: seconds, not minutes.
async function repeatOf(seen: InitSeen, head: string, ids: readonly string[]) {
  const parsed = parsePolicy(readFileSync(join(seen.repo, ".github", "ranex.yml"), "utf8"));
  if (!parsed.ok) throw new Error("init's policy does not parse");
  const tests = parsed.policy.tests;
  const tree = join(tempDir("ranex-tap-select-"), "tree");
  git(seen.repo, "worktree", "add", "-q", "--detach", tree, head);
  const scratch = tempDir("ranex-tap-select-report-");
  // In the run's report folder, which the run sees (as a repeat's list is).
  const listFile = join(scratch, "report", "select.txt");
  const selection = selectionFor(tests, ids, listFile, "bwrap");
  if (selection === null) throw new Error(`no selection for ${tests.command ?? "(no command)"}`);
  const keys = readdirSync(join(seen.data, "deps"));
  expect(keys).toHaveLength(1);
  const modules = join(seen.data, "deps", keys[0]!, "files", "node_modules");
  const sandbox = createSandbox({ ...PROFILE, memoryBytes: 2 * 1024 ** 3, maxProcesses: 256, mounts: [{ host: REPORTERS_DIR, sandbox: SANDBOX_REPORTERS_DIR }] });
  const run = await runSuite(sandbox, {
    label: "head", treeDir: tree, readonly: [], reportDir: join(scratch, "report"), setup: undefined, command: selection.command, env: selection.env,
    setupNetwork: false, timeout: 300,
    deps: { key: keys[0]!, hit: true, setup: null, installed: null, overlays: [{ host: modules, path: "node_modules" }], lowers: [], failure: null, evicted: [], storeError: null },
  }, async () => writeFileSync(listFile, selectionList(ids)));
  return { run, how: selection.how, unproven: await selectionUnproven(selection, ids, listFile, run) };
}

/**
 * The TAP launcher's selection with a real runner: the owner's target alone on the honest head (which
 * has a second test file), read as outcomes only when it proves itself; a name the runner cannot
 * find is never an outcome. `ran` is what the runner ran of test/calc.js besides the target: nothing
 * where it filters by name, the whole file for tape.
 */
export function selectsWithTheRealRunner(seen: () => InitSeen, how: string, ran: readonly string[]): void {
  it("selects the target with the real runner, and a selection that finds nothing is never an outcome", async () => {
    const target = "test/calc.js::muls";
    const selected = await repeatOf(seen(), "honest", [target]);
    expect(selected.how).toBe(how);
    expect(selected.unproven).toBeNull();
    expect(selected.run.report?.cases.map((c) => [c.id, c.result]).sort()).toEqual([[target, "passed"], ...ran.map((id) => [id, "passed"])].sort());
    // A renamed or missing target: the run cannot stand for it (a repeat then runs the whole suite).
    const missing = await repeatOf(seen(), "honest", [target, "test/calc.js::divides"]);
    expect(missing.unproven).toContain("did not report test/calc.js::divides");
  }, 300_000);
}
