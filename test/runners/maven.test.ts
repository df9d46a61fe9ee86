import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectTestRunner } from "../../src/policy/detect.js";
import { testCommand } from "../../src/policy/init.js";
import { maven, MAVEN_TEST_COMMAND } from "../../src/runners/maven.js";
import { tempDir } from "../helpers/git-repo.js";
import { mergedReport, placeReports } from "../helpers/jvm-reports.js";

// The Maven runner: Surefire's reports (as a real `mvn test` wrote them, kept in fixtures/surefire)
// merged by the gate's junit-merge.sh, read with class#method ids; javac's rejections as load
// errors; the canary class; the selection. The full run with Maven Central is test/e2e/ecosystems.
const SUREFIRE = join(import.meta.dirname, "fixtures", "surefire");

function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const TREE = {
  "pom.xml": "<project><dependencies><dependency><artifactId>junit-jupiter</artifactId></dependency></dependencies></project>\n",
  "src/main/java/com/example/calc/Calc.java": "package com.example.calc;\npublic final class Calc {}\n",
  "src/test/java/com/example/calc/CalcTest.java": "package com.example.calc;\nclass CalcTest {}\n",
  "src/test/java/com/example/calc/MulTest.java": "package com.example.calc;\nclass MulTest {}\n",
};

// What `mvn -q test` printed when MulTest.java called a method Calc does not have.
const BUILD_LOG = (tree: string): string => [
  "[ERROR] COMPILATION ERROR : ",
  `[ERROR] ${tree}/src/test/java/com/example/calc/MulTest.java:[7,41] cannot find symbol`,
  "  symbol:   method times(int,int)",
  "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:testCompile (default-testCompile) on project calc: Compilation failure",
  "",
].join("\n");


describe("maven", () => {
  it("merges every Surefire report and names the tests class#method, with their source files", async () => {
    const tree = tempDir("ranex-maven-");
    write(tree, TREE);
    placeReports(SUREFIRE, tree, "target/surefire-reports");
    const report = await mergedReport(tree, MAVEN_TEST_COMMAND);
    expect(Object.fromEntries(report.cases.map((c) => [c.id, [c.result, c.file]]))).toEqual({
      "com.example.calc.CalcTest#adds": ["passed", "src/test/java/com/example/calc/CalcTest.java"],
      "com.example.calc.CalcTest#muls": ["failed", "src/test/java/com/example/calc/CalcTest.java"],
      "com.example.calc.CalcTest#addsMany(long, long, long)[1]": ["passed", "src/test/java/com/example/calc/CalcTest.java"],
      "com.example.calc.CalcTest#addsMany(long, long, long)[2]": ["passed", "src/test/java/com/example/calc/CalcTest.java"],
      "com.example.calc.CalcTest$Inner#zero": ["passed", "src/test/java/com/example/calc/CalcTest.java"],
    });
    expect(report.cases.find((c) => c.id.endsWith("#muls"))?.message).toContain("expected: <42> but was: <0>");
    expect(report.loadErrors).toEqual([]);
  });

  it("reads a test class javac rejected as a file that failed to load, with javac's reason", async () => {
    const tree = tempDir("ranex-maven-broken-");
    write(tree, TREE);
    writeFileSync(join(tree, "build.log"), BUILD_LOG(tree));
    const report = await mergedReport(tree, MAVEN_TEST_COMMAND, join(tree, "build.log"));
    expect(report.cases).toEqual([]);
    expect(report.loadErrors).toEqual(["src/test/java/com/example/calc/MulTest.java"]);
    expect(report.loadErrorMessages).toEqual([{ file: "src/test/java/com/example/calc/MulTest.java", message: "cannot find symbol" }]);
  });

  it("gives the canary as a test class of the project's JUnit, and selects with -Dtest", async () => {
    const tree = tempDir("ranex-maven-canary-");
    write(tree, TREE);
    const placed = await maven.canary({ command: MAVEN_TEST_COMMAND, treeDir: tree, hostDir: "", seenAs: "", values: { word: "sortslonglist", right: 7, wrong: 8 } });
    if ("note" in placed) throw new Error(placed.note);
    const [file] = placed.treeFiles ?? [];
    expect(file).toMatch(/^src\/test\/java\/[A-Z][a-z]+[A-Z][a-z]+Test\.java$/);
    expect(readFileSync(join(tree, file ?? ""), "utf8")).toContain("@org.junit.jupiter.api.Test");
    expect(placed.members.map((m) => m.expect)).toEqual(["fail", "fail", "pass"]);
    const selection = maven.select({ command: MAVEN_TEST_COMMAND, ids: ["com.example.calc.CalcTest#muls", "com.example.calc.CalcTest#adds", "com.example.calc.MulTest#mulsNegative"], listFile: "", backend: "bwrap", common: {} });
    expect(selection?.command).toMatch(/^MAVEN_OPTS="-XX:TieredStopAtLevel=1 -XX:\+UseSerialGC" mvn -Dtest='com\.example\.calc\.CalcTest#adds\+muls,com\.example\.calc\.MulTest#mulsNegative' -Dsurefire\.failIfNoSpecifiedTests=false -o /);
    expect(maven.select({ command: MAVEN_TEST_COMMAND, ids: ["com.example.calc.CalcTest$Inner#zero"], listFile: "", backend: "bwrap", common: {} })).toBeNull();
  });

  it("init: pom.xml, frozen src/test, Debian's /etc folders the JDK and Maven link into, read-only", async () => {
    const tree = tempDir("ranex-maven-init-");
    write(tree, TREE);
    const found = await detectTestRunner(tree);
    expect(found).toMatchObject({ kind: "maven", testFiles: ["src/test/**", "**/src/test/**"], sandboxReadonly: ["/etc/java-17-openjdk", "/etc/maven"] });
    expect(testCommand(found)?.command).toBe(MAVEN_TEST_COMMAND);
  });
});
