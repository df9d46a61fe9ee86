import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPORTERS_DIR } from "../../src/measure/reporters.js";
import { detectTestRunner } from "../../src/policy/detect.js";
import { renderStarter, testCommand } from "../../src/policy/init.js";
import { parsePolicy, POLICY_PATH } from "../../src/policy/index.js";
import { runnersIn } from "../../src/runners/index.js";
import { gradle, gradleMissing, gradleTestCommand, GRADLE_DEPS_DIR } from "../../src/runners/gradle.js";
import { findBinary } from "../../src/runners/toolchain.js";
import { tempDir } from "../helpers/git-repo.js";
import { mergedReport, placeReports } from "../helpers/jvm-reports.js";

// The Gradle runner: the JUnit XML a real `gradle test` wrote (fixtures/gradle, Debian's Gradle 4.4.1),
// merged by the gate's junit-merge.sh, read with class#method ids; javac's rejections as Gradle
// prints them as load errors; the canary class; the selection; what init writes with and without a
// wrapper, and its one line when the machine has no gradle. The full run is test/e2e/ecosystems.
const GRADLE_XML = join(import.meta.dirname, "fixtures", "gradle");
const COMMAND = gradleTestCommand("gradle");

function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const TREE = {
  "build.gradle": "apply plugin: 'java'\nrepositories { mavenCentral() }\ndependencies { testImplementation 'junit:junit:4.13.2' }\n",
  "settings.gradle": "rootProject.name = 'calc'\n",
  "src/main/java/com/example/calc/Calc.java": "package com.example.calc;\npublic final class Calc {}\n",
  "src/test/java/com/example/calc/CalcTest.java": "package com.example.calc;\npublic class CalcTest {}\n",
  "src/test/java/com/example/calc/MulTest.java": "package com.example.calc;\npublic class MulTest {}\n",
};

// What Debian's `gradle -q test` printed when MulTest.java called a method Calc does not have (the
// tree's absolute path in front, as javac names the file).
const BUILD_LOG = (tree: string): string => [
  `${tree}/src/test/java/com/example/calc/MulTest.java:5: error: cannot find symbol`,
  "  @Test public void mulsNegative() { assertEquals(-6, Calc.times(-2, 3)); }",
  "                                                          ^",
  "  symbol:   method times(int,int)",
  "  location: class Calc",
  "1 error",
  "",
  "FAILURE: Build failed with an exception.",
  "",
  "* What went wrong:",
  "Execution failed for task ':compileTestJava'.",
  "> Compilation failed; see the compiler error output for details.",
  "",
].join("\n");


describe("gradle", () => {
  it("merges the reports of every test task and names the tests class#method, with their source files", async () => {
    const tree = tempDir("ranex-gradle-");
    write(tree, TREE);
    placeReports(GRADLE_XML, tree, "build/test-results/test");
    const report = await mergedReport(tree, COMMAND);
    expect(Object.fromEntries(report.cases.map((c) => [c.id, [c.result, c.file]]))).toEqual({
      "com.example.calc.CalcTest#adds": ["passed", "src/test/java/com/example/calc/CalcTest.java"],
      "com.example.calc.CalcTest#muls": ["failed", "src/test/java/com/example/calc/CalcTest.java"],
      "com.example.calc.CalcTest$Inner#zero": ["passed", "src/test/java/com/example/calc/CalcTest.java"],
    });
    expect(report.cases.find((c) => c.id.endsWith("#muls"))?.message).toContain("expected:<42> but was:<0>");
    expect(report.loadErrors).toEqual([]);
  });

  it("reads a test class javac rejected, as Gradle prints it, as a file that failed to load", async () => {
    const tree = tempDir("ranex-gradle-broken-");
    write(tree, TREE);
    writeFileSync(join(tree, "build.log"), BUILD_LOG(tree));
    const report = await mergedReport(tree, COMMAND, join(tree, "build.log"));
    expect(report.cases).toEqual([]);
    expect(report.loadErrors).toEqual(["src/test/java/com/example/calc/MulTest.java"]);
    expect(report.loadErrorMessages).toEqual([{ file: "src/test/java/com/example/calc/MulTest.java", message: "cannot find symbol" }]);
  });

  it("gives the canary as a test class of the build's JUnit, and selects with --tests", async () => {
    const tree = tempDir("ranex-gradle-canary-");
    write(tree, TREE);
    const placed = await gradle.canary({ command: COMMAND, treeDir: tree, hostDir: "", seenAs: "", values: { word: "sortslonglist", right: 7, wrong: 8 } });
    if ("note" in placed) throw new Error(placed.note);
    const [file] = placed.treeFiles ?? [];
    expect(file).toMatch(/^src\/test\/java\/[A-Z][a-z]+[A-Z][a-z]+Test\.java$/);
    expect(readFileSync(join(tree, file ?? ""), "utf8")).toContain("@org.junit.Test");
    expect(placed.members.map((m) => m.expect)).toEqual(["fail", "fail", "pass"]);
    const selection = gradle.select({ command: COMMAND, ids: ["com.example.calc.CalcTest#muls", "com.example.calc.CalcTest$Inner#zero", "com.example.calc.MulTest#mulsNegative"], listFile: "", backend: "bwrap", common: {} });
    expect(selection?.command).toMatch(/ gradle --offline --no-daemon -q --continue -g \/tmp\/ranex-gradle-home -I "\$RANEX_REPORTERS\/gradle\/console\.gradle" -I "\$RANEX_REPORTERS\/gradle\/select\.gradle" test --tests 'com\.example\.calc\.CalcTest\$Inner\.zero' --tests 'com\.example\.calc\.CalcTest\.muls' --tests 'com\.example\.calc\.MulTest\.mulsNegative'$/);
    expect(selection !== null && gradle.canSelect(selection.command)).toBe(false);
    // Only the id's class and method words reach the shell.
    expect(gradle.select({ command: COMMAND, ids: ["com.example.calc.CalcTest#adds'; touch /tmp/owned; '"], listFile: "", backend: "bwrap", common: {} })?.command).not.toContain("owned");
    expect(gradle.select({ command: COMMAND, ids: ["odd id"], listFile: "", backend: "bwrap", common: {} })).toBeNull();
    expect(readFileSync(join(REPORTERS_DIR, "gradle", "select.gradle"), "utf8")).toContain("failOnNoMatchingTests = false");
  });

  it("gives a canary class to each subproject with a build file and tests, with that project's ids", async () => {
    const tree = tempDir("ranex-gradle-projects-");
    write(tree, {
      "settings.gradle": "include 'lib', 'cli'\n", "build.gradle": "subprojects { apply plugin: 'java' }\n",
      "lib/build.gradle": "dependencies { testImplementation 'junit:junit:4.13.2' }\n", "lib/src/test/java/ex/LibTest.java": "class LibTest {}\n",
      // A subproject whose build names no JUnit: no canary there, and a note.
      "cli/build.gradle": "dependencies { testImplementation 'org.testng:testng:7.8.0' }\n", "cli/src/test/java/ex/CliTest.java": "class CliTest {}\n",
    });
    const placed = await gradle.canary({ command: COMMAND, treeDir: tree, hostDir: "", seenAs: "", values: { word: "w", right: 1, wrong: 2 } });
    if ("note" in placed) throw new Error(placed.note);
    expect(placed.treeFiles).toEqual([expect.stringMatching(/^lib\/src\/test\/java\/[A-Za-z]+Test\.java$/)]);
    expect(readFileSync(join(tree, placed.treeFiles?.[0] ?? ""), "utf8")).toContain("@org.junit.Test");
    expect(placed.members.map((m) => m.inBinary?.ids)).toEqual(["^lib/", "^lib/", "^lib/"]);
    expect(placed.notes).toEqual([expect.stringContaining("gradle: no canary in cli (its build names neither junit-jupiter nor junit:junit")]);
  });

  it("gives no canary when the build names no JUnit, and says why", async () => {
    const tree = tempDir("ranex-gradle-testng-");
    write(tree, { ...TREE, "build.gradle": "apply plugin: 'java'\ndependencies { testImplementation 'org.testng:testng:7.8.0' }\ntest { useTestNG() }\n" });
    expect(await gradle.canary({ command: COMMAND, treeDir: tree, hostDir: "", seenAs: "", values: { word: "w", right: 1, wrong: 2 } })).toEqual({ note: expect.stringContaining("neither junit-jupiter nor junit:junit") as unknown as string });
  });

  it("init: build.gradle, the machine's gradle, frozen src/test, a setup that fills a Gradle home in the tree", async () => {
    const tree = tempDir("ranex-gradle-init-");
    write(tree, TREE);
    const found = await detectTestRunner(tree);
    expect(found).toMatchObject({ kind: "gradle", testFiles: ["src/test/**", "**/src/test/**"], sandboxReadonly: ["/etc/java-17-openjdk"] });
    // CI's machine has no gradle (its end-to-end test is opt-in): then the evidence says so, in init's one line.
    const machineGradle = findBinary("gradle", ["/usr/bin", "/usr/local/bin", "/opt/gradle/bin"]);
    expect(found.evidence).toBe(`build.gradle, settings.gradle${machineGradle === null ? `; ${gradleMissing(false, null)}` : ""}`);
    expect(found.install).toContain(`gradle --no-daemon -q --continue -g "$PWD/${GRADLE_DEPS_DIR}" test`);
    expect(testCommand(found)?.command).toBe(COMMAND);
    expect(runnersIn(COMMAND).map((r) => r.name)).toEqual(["gradle"]);
    expect(parsePolicy(renderStarter(found), POLICY_PATH).ok).toBe(true);
  });

  it("init: a committed gradlew wrapper is what runs, in setup and in the runs", async () => {
    const tree = tempDir("ranex-gradle-wrapper-");
    write(tree, { ...TREE, "build.gradle.kts": "plugins { java }\n", gradlew: "#!/bin/sh\n", "gradle/wrapper/gradle-wrapper.properties": "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.10-bin.zip\n" });
    const found = await detectTestRunner(tree);
    expect(found.kind).toBe("gradle");
    expect(found.evidence).toBe("build.gradle, build.gradle.kts, settings.gradle and the gradlew wrapper");
    expect(found.install).toContain("./gradlew --no-daemon");
    expect(found.toolchain).toEqual([]);
    expect(testCommand(found)?.command).toBe(gradleTestCommand("./gradlew"));
    expect(runnersIn(gradleTestCommand("./gradlew")).map((r) => r.name)).toEqual(["gradle"]);
  });

  it("init says in one line when the machine has no gradle and the repository no wrapper", () => {
    expect(gradleMissing(true, null)).toBeNull();
    expect(gradleMissing(false, "/usr/bin")).toBeNull();
    const line = gradleMissing(false, null) ?? "";
    expect(line).toMatch(/^this machine has no gradle and the repository commits no gradlew wrapper, so the tests cannot run here: install Gradle \(Debian: apt-get install gradle/);
    expect(line).not.toContain("\n");
  });
});

// Gradle's console against its reports (reporters/gradle/console.gradle prints a line per test class
// from the build process, in Maven's words): what Debian's Gradle 4.4.1 printed under -q for
// gradle-calc's red target, and the same report with the failure taken out after Gradle wrote it.
describe("gradle: the console's lines against the JUnit XML", () => {
  const printed = "ranex-gradle: Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0 s <<< FAILURE! -- in com.example.calc.CalcTest\n\n3 tests completed, 1 failed\n";
  const report = (muls: "failed" | "passed") => ({
    cases: [
      { id: "com.example.calc.CalcTest#adds", name: "adds", file: null, result: "passed" as const },
      { id: "com.example.calc.CalcTest#muls", name: "muls", file: null, result: muls },
    ],
    digest: "sha256:x", duplicates: [], loadErrors: [], notes: [],
  });

  it("init's command prints the lines through the gate's own runner, and a report rewritten after Gradle is a contradiction", () => {
    expect(COMMAND).toContain(`sh "$RANEX_REPORTERS/gradle/run.sh" gradle --offline --no-daemon -q --continue -g /tmp/ranex-gradle-home -I "$RANEX_REPORTERS/gradle/console.gradle" test`);
    expect(readFileSync(join(REPORTERS_DIR, "gradle", "console.gradle"), "utf8")).toContain("afterSuite");
    expect(gradle.crossCheck?.(report("failed"), { text: printed, truncated: false }, COMMAND)).toEqual({ contradictions: [], notes: [] });
    expect(gradle.crossCheck?.(report("passed"), { text: printed, truncated: false }, COMMAND)?.contradictions).toEqual([
      "Gradle printed 1 failing test of com.example.calc.CalcTest, its JUnit report holds 0: the report was rewritten after Gradle wrote it",
    ]);
    // A policy written before the lines existed prints none: its reports are not questioned by them.
    const older = "gradle --offline --no-daemon -q --continue -g /tmp/ranex-gradle-home test > /tmp/ranex-build.log 2>&1; status=$?; cat /tmp/ranex-build.log; exit $status";
    expect(gradle.crossCheck?.(report("failed"), { text: "", truncated: false }, older)).toEqual({ contradictions: [], notes: [] });
  });
});
