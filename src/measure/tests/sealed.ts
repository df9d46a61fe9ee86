// tests.sealed (issue 20): every sealed acceptance test fails (or is absent) on base and passes on
// head. Read only from what the measuring process let out: short ids, outcomes, counts and run facts
// without output. So the reason, details and meta below can never name a sealed test or show its output.
import type { Detail, Evidence } from "../../kernel/types.js";
import type { SealedOutcome } from "../plan.js";
import { sealedHolds } from "../sealed-summary.js";

export const SEALED_CLAIM = "tests.sealed";

export function sealedClaim(subject: string, outcome: SealedOutcome, sealedDigest: string): Evidence {
  const base = { claim: SEALED_CLAIM, subject };
  if (!outcome.opened) {
    return { ...base, outcome: "fail", reason: `cannot judge the sealed tests: ${outcome.reason}`, details: [], meta: { sealed: sealedDigest } };
  }
  const meta = { sealed: sealedDigest, files: outcome.files, tests: outcome.tests.length };
  const details: Detail[] = outcome.tests.map((t) => {
    const { red, green } = sealedHolds(t);
    return {
      kind: red && green ? "red-green" : "sealed",
      message: `${t.id}: ${t.base} on base, ${t.head} on head${red ? "" : " (not red on base)"}${green ? "" : " (not green on head)"}`,
    };
  });
  const extra = { ...(outcome.unsafe ? { unsafe: true } : {}), runs: outcome.runs };
  if (outcome.problems.length > 0) {
    return { ...base, outcome: "fail", reason: `cannot judge the sealed tests: ${outcome.problems.join("; ")}`, details, meta, ...extra };
  }
  const notRed = outcome.tests.filter((t) => !sealedHolds(t).red).length;
  const notGreen = outcome.tests.filter((t) => !sealedHolds(t).green).length;
  const count = outcome.tests.length;
  if (notRed > 0 || notGreen > 0) {
    const parts = [
      ...(notGreen > 0 ? [`${notGreen} of ${count} sealed tests do not pass on head`] : []),
      ...(notRed > 0 ? [`${notRed} of ${count} sealed tests already pass on base`] : []),
    ];
    return { ...base, outcome: "fail", reason: `${parts.join("; ")} (the details list them by id)`, details, meta, ...extra };
  }
  return { ...base, outcome: "pass", reason: `all ${count} sealed tests fail on base and pass on head`, details, meta, ...extra };
}

/** tests.sealed required, but nothing sealed to measure: absent, with what would satisfy it. */
export function sealedAbsent(subject: string, hasTask: boolean): Evidence {
  const reason = hasTask
    ? "the task seals no acceptance tests: seal some with `ranex seal --task <id> <files>` on the base, or take tests.sealed out of require"
    : "no task: tests.sealed needs a task with sealed acceptance tests (`Ranex-Task: <id>`, `ranex seal --task <id>`)";
  return { claim: SEALED_CLAIM, subject, outcome: "absent", reason, details: [] };
}

/** tests.sealed cannot be measured at all (no box on the base, no key): FAIL `incomplete`, with the remedy. */
export function sealedUnmeasured(subject: string, reason: string, sealedDigest: string | null): Evidence {
  return { claim: SEALED_CLAIM, subject, outcome: "fail", reason: `cannot judge the sealed tests: ${reason}`, details: [], ...(sealedDigest === null ? {} : { meta: { sealed: sealedDigest } }) };
}
