import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readJunitReport } from "../../src/measure/junit-read.js";
import { REPORTERS_DIR } from "../../src/measure/reporters.js";
import type { TestReport } from "../../src/measure/report-types.js";

// The JVM runners (Maven, Gradle) share the gate's reporters/junit-merge.sh: these put a real build's
// XML reports where the build leaves them, and read what the merge makes of them, as a run would.

/** Copies the `.xml` files of `from` into `tree`/`folder` (target/surefire-reports, build/test-results/test). */
export function placeReports(from: string, tree: string, folder: string): void {
  mkdirSync(join(tree, folder), { recursive: true });
  for (const file of readdirSync(from).filter((f) => f.endsWith(".xml"))) copyFileSync(join(from, file), join(tree, folder, file));
}

/** Runs junit-merge.sh in `tree` (with the build log, when given) and reads its report as the run's command would be. */
export async function mergedReport(tree: string, command: string, log?: string): Promise<TestReport> {
  const out = join(tree, "report.xml");
  execFileSync("sh", [join(REPORTERS_DIR, "junit-merge.sh"), ...(log === undefined ? [] : [log])], { cwd: tree, env: { ...process.env, RANEX_REPORT: out } });
  const read = await readJunitReport(out, tree, command);
  if ("error" in read) throw new Error(read.error);
  return read.report;
}
