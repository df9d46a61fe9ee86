import { POLICY_CLAIM } from "./claims.js";
import { subjectDigest } from "./subject.js";
import type { Detail, Subject, Verdict } from "./types.js";

/**
 * The verdict when the gate itself cannot be built: no policy on the base, an invalid policy, an
 * unknown task, a gate that requires nothing. Absence blocks, so this is a FAIL, never a skip.
 */
export function configurationFailure(subject: Subject, reason: string, details: readonly Detail[] = []): Verdict {
  return {
    verdict: "FAIL",
    class: "incomplete",
    subject: { ...subject, digest: subjectDigest(subject) },
    claims: [{
      name: POLICY_CLAIM, status: "fail", cause: "failed", class: "incomplete",
      reason, details: details.map((d) => ({ ...d })), evidence: [],
    }],
    missing: [],
    reasons: [`${POLICY_CLAIM}: ${reason}`],
  };
}
