// The frozen paths of a commit, by the same matcher diff.frozen uses: a judgment binds them
// read-only in every run, and so does every run made outside a judgment (`ranex init`'s try,
// `ranex tests`, `ranex task check`), so a suite that writes into a frozen file fails in both.
import type { Policy } from "../policy/schema.js";
import { frozenSet, type DiffContext } from "../measure/diff/index.js";

/** The base's test files, by the same matcher the frozen rule uses; `unfreeze` takes paths out. */
export function testFilesOn(paths: readonly string[], ctx: DiffContext): string[] {
  const frozen = frozenSet(ctx);
  return paths.filter((p) => frozen.isTestFile(p) && !ctx.policy.unfreeze.includes(p));
}

/** Every frozen path of the base (tests, harness, policy): read-only inside every run. */
export function frozenPathsOn(paths: readonly string[], ctx: DiffContext): string[] {
  const frozen = frozenSet(ctx);
  return paths.filter((p) => frozen.has(p));
}

/** The frozen paths of a commit's files under a policy, with no change to compare against. */
export function frozenPathsOf(paths: readonly string[], policy: Policy): string[] {
  return frozenPathsOn(paths, { subject: "", facts: [], basePaths: paths, policy, task: null, added: [] });
}
