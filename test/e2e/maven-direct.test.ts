import { execFile } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { REPORTERS_DIR, SANDBOX_REPORTERS_DIR } from "../../src/measure/reporters.js";
import { runSuite } from "../../src/measure/run-suite.js";
import { selectionFor, selectionUnproven } from "../../src/measure/select.js";
import type { SuiteRun } from "../../src/measure/report-types.js";
import { mavenConsoleCheck } from "../../src/runners/maven-console.js";
import { javaConfigFolders, MAVEN_SETUP_COMMAND, MAVEN_TEST_COMMAND } from "../../src/runners/maven.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";

// tests.stable's repeats on a built Maven tree without Maven's start (issue 22): the selection runs
// the gate's JUnit Platform launcher on the class path Surefire used in the run that built the tree,
// in the real sandbox, on fixtures/repos/maven-reactor.sh (main: core's target `muls` red, round's
// `halfEven` a known failure). Before, every repeat was a Maven start (`surefire:test@default-test`),
// and the launcher's lines below were never printed. What it must keep: the selection proven by the
// report, the module's ids and files, and Maven's line for each failed class in the run's output
// before the report exists, which Maven's console check compares with the report.
const run = promisify(execFile);
const sandbox = createSandbox({
  backend: "bwrap", readonly: javaConfigFolders(), mounts: [{ host: REPORTERS_DIR, sandbox: SANDBOX_REPORTERS_DIR }],
  memoryBytes: 4096 * 1024 * 1024, maxProcesses: 1024, outputLimitBytes: 256 * 1024,
});

describe("maven-reactor: a repeat on the built tree through the gate's launcher", () => {
  let tree: string;
  let head: SuiteRun;
  const repeat = async (ids: string[], tag: string) => {
    const reportDir = join(tempDir("ranex-maven-direct-report-"), tag);
    const selection = selectionFor({ command: MAVEN_TEST_COMMAND }, ids, join(reportDir, "select.txt"), "bwrap", { treeDir: tree, built: true });
    if (selection === null) throw new Error("no selection");
    const done = await runSuite(sandbox, {
      label: "head", treeDir: tree, readonly: [], reportDir, setup: undefined, command: selection.command, env: selection.env, setupNetwork: false, timeout: 600,
    });
    return { run: done, unproven: await selectionUnproven(selection, ids, join(reportDir, "select.txt"), done) };
  };

  beforeAll(async () => {
    tree = join(tempDir("ranex-maven-direct-"), "maven-reactor");
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
    await run("bash", [join(FIXTURES_DIR, "maven-reactor.sh"), tree], { env });
    // Init's setup (Maven Central), then init's command builds the tree and runs every module's tests.
    head = await runSuite(sandbox, {
      label: "head", treeDir: tree, readonly: [], reportDir: join(tempDir("ranex-maven-direct-head-"), "report"),
      setup: MAVEN_SETUP_COMMAND, command: MAVEN_TEST_COMMAND, setupNetwork: true, timeout: 1500,
    });
  }, 1_600_000);

  it("runs the selected methods of one module without Maven, and the report proves the selection", async () => {
    expect(head.report?.cases.find((c) => c.id === "core/ex.CalcTest#muls")?.result, head.reportError ?? head.command?.outputTail).toBe("failed");
    const { run: done, unproven } = await repeat(["core/ex.CalcTest#muls", "core/ex.CalcTest#adds"], "r1");
    const output = done.command?.outputTail ?? "";
    expect(output, done.reportError ?? "").toContain("ranex-repeat: done");
    expect(unproven).toBeNull();
    expect(done.report?.cases.map((c) => [c.id, c.result, c.file])).toEqual([
      ["core/ex.CalcTest#adds", "passed", "core/src/test/java/ex/CalcTest.java"],
      ["core/ex.CalcTest#muls", "failed", "core/src/test/java/ex/CalcTest.java"],
    ]);
    expect(done.report?.cases.find((c) => c.id.endsWith("#muls"))?.message).toContain("expected: <42> but was: <0>");
    // Exit 1, as Maven's run of a failed test; Maven's line for the class, which agrees with the report.
    expect(done.command?.exitCode).toBe(1);
    expect(output).toMatch(/Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: [\d.]+ s <<< FAILURE! -- in ex\.CalcTest/);
    expect(done.report?.contradictions).toBeUndefined();
    // A report rewritten after the launcher wrote it (the failure taken out) contradicts what it printed.
    const forged = { ...done.report!, cases: done.report!.cases.map((c) => ({ ...c, result: "passed" as const })) };
    expect(mavenConsoleCheck(forged, { text: output, truncated: false }).contradictions)
      .toEqual(["Maven printed 1 failing test of ex.CalcTest, its Surefire report holds 0: the report was rewritten after Maven wrote it"]);
    // Compiled once for the tree: the next repeat reuses it.
    expect(readdirSync(join(tree, "core", "target")).filter((f) => f.startsWith("ranex-repeat-"))).toHaveLength(1);
  }, 600_000);

  it("a module three folders down keeps its ids, and a second repeat on the tree runs as the first", async () => {
    for (const tag of ["r1", "r2"]) {
      const { run: done, unproven } = await repeat(["libs/text/round/ex.RoundTest#halfEven"], `round-${tag}`);
      expect(done.command?.outputTail, done.reportError ?? "").toContain("ranex-repeat: done");
      expect(unproven).toBeNull();
      expect(done.report?.cases.map((c) => [c.id, c.result, c.file])).toEqual([
        ["libs/text/round/ex.RoundTest#halfEven", "failed", "libs/text/round/src/test/java/ex/RoundTest.java"],
      ]);
    }
  }, 600_000);
  // Last: Maven's run in it removes every module's Surefire reports (reporters/maven-run.sh), where the launcher reads its class path.
  it("sets the fork's system properties from its report, and leaves the repeat to Maven when the fork's JVM was started otherwise", async () => {
    // As a pom's systemPropertyVariables would have Surefire record them (java-diff-utils sets java.util.logging.config.file).
    const report = join(tree, "core", "target", "surefire-reports", "TEST-ex.CalcTest.xml");
    const original = readFileSync(report, "utf8");
    writeFileSync(report, original.replace("</properties>", '<property name="java.util.logging.config.file" value="target/test-classes/logging.properties"/></properties>'));
    const replayed = await repeat(["core/ex.CalcTest#adds"], "props");
    expect(replayed.run.command?.outputTail).toContain("ranex-repeat: done");
    expect(replayed.unproven).toBeNull();
    // A property the JVM defines at its start, set otherwise in the fork (an argLine's -Dfile.encoding): Maven runs the repeat.
    writeFileSync(report, original.replace(/name="file\.encoding" value="[^"]*"/, 'name="file.encoding" value="ISO-8859-1"'));
    const refused = await repeat(["core/ex.CalcTest#adds"], "encoding");
    expect(refused.run.command?.outputTail).toContain("ranex-repeat: the test JVM Surefire forked had file.encoding=ISO-8859-1");
    expect(refused.run.command?.outputTail).not.toContain("ranex-repeat: done");
    expect(refused.unproven).toBeNull();
    expect(refused.run.report?.cases.map((c) => [c.id, c.result])).toEqual([["core/ex.CalcTest#adds", "passed"]]);
  }, 600_000);

});
