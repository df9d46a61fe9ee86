import type { Detail, Evidence } from "../../kernel/types.js";
import { listed, matcher, plural, shown, type DiffContext } from "./context.js";
import { frozenFindings, FROZEN_CLAIM } from "./frozen.js";
import { newTestFiles } from "./frozen-set.js";

export const SCOPE_CLAIM = "diff.scope";

const WHY = {
  "denied": "matches scope.deny",
  "outside-allow": "outside scope.allow",
  "outside-task": "outside the task's scope",
} as const;

/**
 * Claim `diff.scope`: every changed path (both sides of a rename, the deleted ones too) lies inside
 * `scope.allow`, inside the task's `scope` when it has one, and outside `scope.deny`.
 *
 * Not judged here, so one change is not counted twice:
 * - new test files: the issue makes them red-then-green targets, neither frozen nor out of scope;
 * - paths diff.frozen already fails, but only while the policy requires diff.frozen. A policy that
 *   drops it gets those paths judged here, so they never escape both claims.
 *
 * `scope.deny` matches case-insensitively: a case twin must not slip past a deny on a filesystem that
 * folds case. `allow` matches exactly, the stricter reading.
 */
export function scopeClaim(ctx: DiffContext): Evidence {
  const { policy, task } = ctx;
  const allow = matcher(policy.scope.allow);
  const deny = matcher(policy.scope.deny, { nocase: true });
  const taskScope = task?.scope;
  const inTask = taskScope === undefined ? null : matcher(taskScope);

  const leftToFrozen = new Set<string>(newTestFiles(ctx));
  const newTestCount = leftToFrozen.size;
  let frozenCount = 0;
  if (policy.require.includes(FROZEN_CLAIM)) {
    for (const finding of frozenFindings(ctx)) finding.paths.forEach((p) => leftToFrozen.add(p));
    frozenCount = leftToFrozen.size - newTestCount;
  }

  const changed = new Set<string>();
  for (const fact of ctx.facts) {
    changed.add(fact.path);
    if (fact.status === "R" && fact.oldPath !== null) changed.add(fact.oldPath);
  }
  // Files inside a moved submodule are changed files of the tree (issue 22).
  for (const fact of ctx.inside?.facts ?? []) changed.add(fact.path);
  const judged = [...changed].filter((p) => !leftToFrozen.has(p));

  const outside: { path: string; why: keyof typeof WHY }[] = [];
  for (const path of judged) {
    const why = deny(path) ? "denied" : !allow(path) ? "outside-allow" : inTask !== null && !inTask(path) ? "outside-task" : null;
    if (why !== null) outside.push({ path, why });
  }

  if (outside.length > 0) {
    const details: Detail[] = outside.map(({ path, why }) => ({ path, kind: why, message: `${shown(path)}: ${WHY[why]}` }));
    const items = outside.map(({ path, why }) => `${shown(path)} (${WHY[why]})`);
    return {
      claim: SCOPE_CLAIM, subject: ctx.subject, outcome: "fail", details,
      reason: `${plural(outside.length, "changed path")} out of scope: ${listed(items)}`,
    };
  }
  const globs = (list: readonly string[]): string => (list.length === 0 ? "no glob" : listed(list.map(shown), 3));
  const scopeText = `allow ${globs(policy.scope.allow)}${taskScope === undefined ? "" : `; task ${shown(task?.id ?? "")}: ${globs(taskScope)}`}`;
  const aside = [
    newTestCount > 0 ? plural(newTestCount, "new test file") : "",
    frozenCount > 0 ? `${plural(frozenCount, "frozen path")} left to diff.frozen` : "",
  ].filter(Boolean).join(", ");
  // The task's own bound, named on a pass: the reviewer's brief says what the change was held to.
  const details: Detail[] = taskScope === undefined ? [] : [{ kind: "task-scope", message: `task ${shown(task?.id ?? "")} scope: ${globs(taskScope)}` }];
  return {
    claim: SCOPE_CLAIM, subject: ctx.subject, outcome: "pass", details,
    reason: `${plural(judged.length, "changed path")} within scope (${scopeText})${aside === "" ? "" : `; not judged here: ${aside}`}`,
  };
}
