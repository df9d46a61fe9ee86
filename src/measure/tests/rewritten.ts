// A report the runner's own process contradicts (src/runners: `crossCheck`, Maven's console against
// Surefire's XML): it was rewritten after the runner wrote it, by the code under test or a process it
// left behind (issue 19). Like a canary that came back wrong, the run is not believed: class unsafe.
import type { Detail } from "../../kernel/types.js";
import type { SuiteRun } from "../report-types.js";
import { FORGED_RESULTS } from "./canary-findings.js";

export function rewrittenFindings(run: SuiteRun, details: Detail[]): string | null {
  const found = run.report?.contradictions ?? [];
  if (found.length === 0) return null;
  for (const message of found) details.push({ kind: "rewritten", message: `${run.label}: ${message}` });
  return `${FORGED_RESULTS}: on ${run.label}, ${found.join("; ")}`;
}
