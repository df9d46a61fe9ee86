// Annotations: each finding that names a file becomes a mark on that file (and line) in the PR.
import type { ClaimResult, Verdict } from "../../kernel/index.js";
import { cutTitle } from "../limits.js";

export interface Annotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: "notice" | "warning" | "failure";
  message: string;
  title: string;
}

/** The claims whose findings are about files: where an agent changed what it may not, and config errors. */
const FILE_CLAIMS = new Set(["diff.frozen", "diff.scope", "diff.safety", "secrets", "policy.valid"]);

/** GitHub caps an annotation message at 64 KB. */
const MESSAGE_LIMIT = 60_000;

export function annotationsOf(verdict: Verdict): Annotation[] {
  return verdict.claims.filter(isAnnotated).flatMap((claim) => claim.details.flatMap((detail) => {
    if (detail.path === undefined || detail.path === "") return [];
    // A finding without a line (a deleted or renamed file) marks the file's first line.
    const line = detail.line !== undefined && Number.isInteger(detail.line) && detail.line > 0 ? detail.line : 1;
    const annotation: Annotation = {
      path: detail.path, start_line: line, end_line: line, annotation_level: "failure",
      message: detail.message.slice(0, MESSAGE_LIMIT) || claim.reason.slice(0, MESSAGE_LIMIT),
      title: cutTitle(`${claim.name}${detail.kind === undefined ? "" : ` (${detail.kind})`}`),
    };
    return [annotation];
  }));
}

function isAnnotated(claim: ClaimResult): boolean {
  return claim.status === "fail" && FILE_CLAIMS.has(claim.name);
}
