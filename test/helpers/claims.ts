import type { Judgment } from "../../src/judge/judge.js";
import type { ClaimResult } from "../../src/kernel/types.js";

/** The judgment's claim of that name; throws when the verdict has none. */
export function claim(judgment: Judgment, name: string): ClaimResult {
  const found = judgment.verdict.claims.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no claim ${name}`);
  return found;
}

/** The claims that do not pass, approval (never measured) left out. */
export const failing = (judgment: Judgment): string[] =>
  judgment.verdict.claims.filter((c) => c.name !== "approval.independent" && c.status !== "pass").map((c) => c.name);
