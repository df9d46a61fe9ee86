import type { ClaimName } from "./types.js";

/** Claims the judge knows how to measure, in the order verdicts list them. */
export const KNOWN_CLAIMS = [
  "diff.frozen",
  "diff.scope",
  "diff.safety",
  "secrets",
  "tests.regression",
  "tests.red_green",
  "tests.stable",
  "diff.needed",
  "edges.covered",
  // Sealed acceptance tests (issue 20): red on base and green on head, measured where the agent cannot read them.
  "tests.sealed",
] as const;

export const APPROVAL_CLAIM = "approval.independent";
/** Added by the judge when the policy chose `sandbox: none`: it always fails, so no CANDIDATE. */
export const SANDBOX_CLAIM = "sandbox.isolated";
/** Stands for the policy and task files themselves when they cannot be read or are invalid. */
export const POLICY_CLAIM = "policy.valid";
/** Stands for the change itself when there is nothing to judge. */
export const CHANGE_CLAIM = "diff.change";

/** A failure of these is tampering or a breach: class `unsafe` (DESIGN.md, "Claims"). */
const UNSAFE_CLAIMS: ReadonlySet<string> = new Set(["diff.frozen", "secrets", SANDBOX_CLAIM]);

export function isUnsafeClaim(name: ClaimName): boolean {
  return UNSAFE_CLAIMS.has(name);
}

export function isCheckClaim(name: ClaimName): boolean {
  return /^check:[A-Za-z0-9_.-]+$/.test(name);
}

export function isKnownClaim(name: ClaimName): boolean {
  return (KNOWN_CLAIMS as readonly string[]).includes(name) || isCheckClaim(name) || name === SANDBOX_CLAIM;
}
