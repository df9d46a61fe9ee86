// A verdict already decided stops spending (issue 21). When the head's run timed out or hit a limit,
// a required claim fails on it (tests.regression on `head`, tests.red_green on `head+new`), and no
// repeat (tests.stable) or mutant (diff.needed) of that tree can change that: each would only wait
// out the same timeout again. A head that hangs at import then costs about one timeout, not several.
import type { Policy } from "../policy/schema.js";
import type { RunResult } from "../sandbox/types.js";
import type { RunName, SuiteRun } from "./report-types.js";

/** Which required claim a run's failure decides, per run. */
const DECIDES: Partial<Record<RunName, string>> = { head: "tests.regression", "head+new": "tests.red_green" };

/** How a run ended that no rerun of its tree can undo, or null. */
function cutOff(run: RunResult | null): string | null {
  if (run === null) return null;
  if (run.timedOut) return `timed out after ${Math.round(run.durationMs / 1000)} s`;
  if (run.violation !== null) return `hit a limit (${run.violation})`;
  return null;
}

/**
 * Null while more runs could still matter; else why the verdict is already FAIL ("the head run timed
 * out after 20 s, so tests.regression fails"), which the claims left unmeasured then name.
 */
export function decidedFailure(require: Policy["require"], runs: Partial<Record<RunName, SuiteRun>>): string | null {
  for (const [name, claim] of Object.entries(DECIDES) as [RunName, string][]) {
    const run = runs[name];
    if (run === undefined || !require.includes(claim)) continue;
    const how = cutOff(run.setup) ?? cutOff(run.command);
    if (how !== null) return `the ${name} run ${how}, so ${claim} fails whatever a repeat or mutant shows`;
  }
  return null;
}
