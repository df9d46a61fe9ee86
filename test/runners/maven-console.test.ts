import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAVEN_TEST_COMMAND } from "../../src/runners/maven.js";
import { mavenConsoleCheck } from "../../src/runners/maven-console.js";
import { tempDir } from "../helpers/git-repo.js";
import { mergedReport, placeReports } from "../helpers/jvm-reports.js";

// Surefire's reports against Maven's own console (issue 19): the XML and the console a real
// `mvn -q test` printed in one run (fixtures/surefire, fixtures/maven-console.txt: CalcTest with a
// failing `muls`, a parameterized test and a nested class), read as a run reads them.
const SUREFIRE = join(import.meta.dirname, "fixtures", "surefire");
const CONSOLE = readFileSync(join(import.meta.dirname, "fixtures", "maven-console.txt"), "utf8");

async function report(rewrite?: (xml: string) => string) {
  const tree = tempDir("ranex-maven-console-");
  placeReports(SUREFIRE, tree, "target/surefire-reports");
  writeFileSync(join(tree, "pom.xml"), "<project/>\n");
  const dir = join(tree, "target", "surefire-reports");
  if (rewrite !== undefined) for (const f of readdirSync(dir)) writeFileSync(join(dir, f), rewrite(readFileSync(join(dir, f), "utf8")));
  return mergedReport(tree, MAVEN_TEST_COMMAND);
}

// What the attack's process does to a report once Maven wrote it (fixtures/repos/maven-reactor.sh).
const dropFailures = (xml: string): string => xml.replace(/<failure[\s\S]*?<\/failure>/g, "").replace(/failures="\d+"/g, 'failures="0"');

describe("Maven's console against Surefire's reports", () => {
  it("finds the real run's reports and console in agreement", async () => {
    expect(CONSOLE).toContain("<<< FAILURE!");
    expect(mavenConsoleCheck(await report(), { text: CONSOLE, truncated: false })).toEqual({ contradictions: [], notes: [] });
  });

  it("a failure taken out of the report after Maven printed it is a contradiction", async () => {
    const rewritten = await report(dropFailures);
    expect(rewritten.cases.every((c) => c.result === "passed")).toBe(true);
    expect(mavenConsoleCheck(rewritten, { text: CONSOLE, truncated: false }).contradictions).toEqual([
      "Maven printed 1 failing test of com.example.calc.CalcTest, its Surefire report holds 0: the report was rewritten after Maven wrote it",
    ]);
  });

  it("lines the test JVM adds to the console cannot hide the one Maven printed", async () => {
    const added = `${CONSOLE}\nTests run: 5, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.1 s -- in com.example.calc.CalcTest\n`;
    expect(mavenConsoleCheck(await report(dropFailures), { text: added, truncated: false }).contradictions).toHaveLength(1);
  });

  it("a failure Maven never printed is a contradiction while the whole console was kept, a note when it was cut", async () => {
    const red = await report((xml) => xml.replace('<testcase name="adds" classname="com.example.calc.CalcTest" time="0.003"/>', '<testcase name="adds" classname="com.example.calc.CalcTest" time="0.003"><failure message="x"/></testcase>'));
    expect(red.cases.find((c) => c.id === "com.example.calc.CalcTest#adds")).toMatchObject({ result: "failed" });
    expect(mavenConsoleCheck(red, { text: CONSOLE, truncated: false }).contradictions).toEqual([
      "the Surefire report holds 2 failing tests of com.example.calc.CalcTest, Maven printed 1: the report was written by something other than Maven",
    ]);
    expect(mavenConsoleCheck(red, { text: CONSOLE, truncated: true })).toEqual({
      contradictions: [], notes: ["Maven's output was longer than the run's output limit (sandbox.output_kib): only its last part was compared with the Surefire reports"],
    });
    // A pom that has Surefire name classes by display name: the line cannot be put to a class.
    const phrased = CONSOLE.replace("-- in com.example.calc.CalcTest$Inner", "-- in Calc test Inner");
    expect(mavenConsoleCheck(red, { text: phrased, truncated: false })).toEqual({
      contradictions: [], notes: ["Maven named a failed test class in a form the gate does not read: failures in the Surefire reports that Maven's lines do not show were not questioned"],
    });
  });
});
