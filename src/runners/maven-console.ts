// Surefire's reports against Maven's own console (issue 19). The XML files under target/ are written
// by the Maven process, but the test JVM it forks (and any process that JVM leaves behind) runs as
// the same user in the same tree: it can rewrite them after Maven wrote them (a failure taken out, a
// file removed), and the build log on disk with them. What it cannot rewrite is what Maven already
// printed: the run's command sends Maven's output through a pipe to the gate as it is printed (`tee`),
// and Maven prints, from its own process, a line for every test class that failed or errored:
//   Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.03 s <<< FAILURE! -- in ex.CalcTest
// (` - in ` before Surefire 3; every class without `-q`). Those counts and the report's must agree,
// class by class. Lines can only be added by the test JVM (its output is relayed), never taken back:
// an added line can make a pass look red to this check, not a failure green.
// Gradle's runs print the same lines from the build process (reporters/gradle/console.gradle), compared
// the same way with Gradle's JUnit XML (`says`: whose words they are, in the contradictions).
import type { TestReport } from "../measure/report-types.js";

const CLASS_LINE = /Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: \d+(?:, Flakes: \d+)?, Time elapsed: [^\n]*? -+ in ([\w.$]+)[ \t\r]*$/gm;

// Any line Maven prints for a class that failed, whatever it names the class.
const FAILED_LINE = /^.*Tests run: \d+, Failures: \d+, Errors: \d+.*<<< (?:FAILURE|ERROR)!.*$/gm;

/** The outer class a report case or console line belongs to (`core/ex.CalcTest$Inner#zero` -> `ex.CalcTest`). */
function outerClass(name: string): string {
  const cls = name.slice(name.lastIndexOf("/") + 1);
  return (cls.split("#")[0] ?? "").split("$")[0] ?? "";
}

/** Failed plus errored tests Maven printed, by outer class. */
export function consoleRed(output: string): Map<string, number> {
  const red = new Map<string, number>();
  for (const m of output.matchAll(CLASS_LINE)) {
    const cls = outerClass(m[4] ?? "");
    red.set(cls, (red.get(cls) ?? 0) + Number(m[2]) + Number(m[3]));
  }
  return red;
}

function reportRed(report: TestReport): Map<string, number> {
  const red = new Map<string, number>();
  for (const c of report.cases) {
    const cls = outerClass(c.id);
    if (c.result === "failed" || c.result === "errored") red.set(cls, (red.get(cls) ?? 0) + 1);
  }
  return red;
}

/**
 * What Maven printed that the report contradicts, one sentence per class; with a note when Maven's
 * output was cut (then only the part kept is compared, and a failure Maven printed only before the
 * cut is not seen).
 */
export function mavenConsoleCheck(
  report: TestReport, output: { text: string; truncated: boolean }, says: { tool: string; report: string } = { tool: "Maven", report: "Surefire report" },
): { contradictions: string[]; notes: string[] } {
  const { tool } = says;
  const printed = consoleRed(output.text);
  const reported = reportRed(report);
  // A failed class Maven named otherwise (a pom that has Surefire print display names): its failures
  // cannot be put to a class, so a report's failure Maven did not print cannot be told from one it did.
  const unread = [...output.text.matchAll(FAILED_LINE)].some((m) => !new RegExp(CLASS_LINE.source, "m").test(m[0]));
  const whole = !output.truncated && !unread;
  const contradictions: string[] = [];
  for (const cls of [...new Set([...printed.keys(), ...reported.keys()])].sort()) {
    const said = printed.get(cls) ?? 0;
    const shown = reported.get(cls) ?? 0;
    if (said > shown) contradictions.push(`${tool} printed ${said} failing test${said === 1 ? "" : "s"} of ${cls}, its ${says.report} holds ${shown}: the report was rewritten after ${tool} wrote it`);
    // A failure Maven never printed is only seen as such when its whole output was kept.
    else if (shown > said && whole) contradictions.push(`the ${says.report} holds ${shown} failing test${shown === 1 ? "" : "s"} of ${cls}, ${tool} printed ${said}: the report was written by something other than ${tool}`);
  }
  const notes = [
    ...output.truncated ? [`${tool}'s output was longer than the run's output limit (sandbox.output_kib): only its last part was compared with the ${says.report}s`] : [],
    ...unread ? [`${tool} named a failed test class in a form the gate does not read: failures in the ${says.report}s that ${tool}'s lines do not show were not questioned`] : [],
  ];
  return { contradictions, notes };
}
