// Task targets the base holds but the test command never compiles (issue 22: a cargo feature the
// command leaves off, found on rust-lang/log): the base run cannot report them, so they are absent,
// and absent is not red. The command's runners say why, from the base's text, so `ranex task check`
// and tests.red_green name the feature instead of only "absent".
import type { BaseFiles } from "../../runners/types.js";
import { runnersIn } from "../../runners/index.js";
import type { TestReport } from "../report-types.js";
import { resolveCase } from "./outcomes.js";
import { casesById } from "./run-facts.js";

/** Each target absent from `report` that a runner of `command` finds hidden in `base`, with the runner's line. */
export async function hiddenTargets(targets: readonly string[], report: TestReport | null, command: string, base: BaseFiles): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (report === null) return found;
  const reported = casesById(report);
  for (const target of targets) {
    if (resolveCase(reported, target).kind !== "absent") continue;
    for (const runner of runnersIn(command)) {
      const why = await runner.hiddenBy?.(target, base, command).catch(() => null) ?? null;
      if (why !== null) {
        found.set(target, why);
        break;
      }
    }
  }
  return found;
}
