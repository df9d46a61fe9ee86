import { isKnownClaim, isUnsafeClaim } from "./claims.js";
import type { ClaimName, Gate } from "./types.js";

/** A gate that cannot block, or names a claim nobody can measure. A configuration error. */
export class GateError extends Error {
  override readonly name = "GateError";
}

/**
 * Builds the gate a verdict requires. Refuses a gate that requires nothing (DESIGN.md,
 * invariant 5): such a gate would pass every change, which is decoration, not a gate.
 */
export function makeGate(required: readonly ClaimName[]): Gate {
  const unknown = required.filter((name) => !isKnownClaim(name));
  if (unknown.length > 0) {
    throw new GateError(`unknown claim${unknown.length > 1 ? "s" : ""} in require: ${unknown.join(", ")}`);
  }
  const names = [...new Set(required)];
  if (names.length === 0) {
    throw new GateError("the policy requires no claim, so the gate could never block a change: list at least one claim under require");
  }
  return { claims: names.map((name) => ({ name, unsafe: isUnsafeClaim(name) })) };
}
