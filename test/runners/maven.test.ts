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

  // jhy/jsoup adds src/test/java11 as a test source root (build-helper-maven-plugin): its 111 tests
  // there had no file, so no PR's new test class there could become a target.
  it("finds a test class's source in another test source root under src/test (src/test/java11)", async () => {
    const tree = tempDir("ranex-maven-java11-");
    write(tree, {
      "pom.xml": TREE["pom.xml"], "src/main/java/com/example/calc/Calc.java": TREE["src/main/java/com/example/calc/Calc.java"],
      "src/test/java11/com/example/calc/CalcTest.java": "package com.example.calc;\nclass CalcTest {}\n",
      "src/test/resources/com/example/calc/CalcTest.java": "not a source root\n",
    });
    placeReports(SUREFIRE, tree, "target/surefire-reports");
    const report = await mergedReport(tree, MAVEN_TEST_COMMAND);
    expect(Object.fromEntries(report.cases.map((c) => [c.id, c.file]))).toMatchObject({
      "com.example.calc.CalcTest#adds": "src/test/java11/com/example/calc/CalcTest.java",
      "com.example.calc.CalcTest$Inner#zero": "src/test/java11/com/example/calc/CalcTest.java",
    });
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
    expect(selection?.command).toMatch(/^MAVEN_OPTS="-XX:TieredStopAtLevel=1 -XX:\+UseSerialGC" sh "\$RANEX_REPORTERS\/maven-run\.sh" mvn -Dtest='com\.example\.calc\.CalcTest#adds\+muls,com\.example\.calc\.MulTest#mulsNegative' -Dsurefire\.failIfNoSpecifiedTests=false -o /);
    expect(maven.select({ command: MAVEN_TEST_COMMAND, ids: ["com.example.calc.CalcTest$Inner#zero"], listFile: "", backend: "bwrap", common: {} })).toBeNull();
  });

  it("keeps two modules' same-named classes apart: each id names its module, each file is its module's", async () => {
    const tree = tempDir("ranex-maven-modules-");
    write(tree, { ...TREE, "core/pom.xml": "<project/>\n", "app/pom.xml": "<project/>\n", "core/src/test/java/com/example/calc/CalcTest.java": "class CalcTest {}\n", "app/src/test/java/com/example/calc/CalcTest.java": "class CalcTest {}\n" });
    placeReports(SUREFIRE, tree, "core/target/surefire-reports");
    placeReports(SUREFIRE, tree, "app/target/surefire-reports");
    const report = await mergedReport(tree, MAVEN_TEST_COMMAND);
    const seen = Object.fromEntries(report.cases.map((c) => [c.id, c.file]));
    // The root's own src/test/java has a CalcTest too: the modules' tests are not its.
    for (const module of ["core", "app"]) {
      expect(seen).toMatchObject({
        [`${module}/com.example.calc.CalcTest#muls`]: `${module}/src/test/java/com/example/calc/CalcTest.java`,
        [`${module}/com.example.calc.CalcTest$Inner#zero`]: `${module}/src/test/java/com/example/calc/CalcTest.java`,
      });
    }
    expect(report.cases).toHaveLength(10);
    expect(report.duplicates).toEqual([]);
    // A module's id selects its class (in every module that has it).
    expect(maven.select({ command: MAVEN_TEST_COMMAND, ids: ["core/com.example.calc.CalcTest#muls"], listFile: "", backend: "bwrap", common: {} })?.command).toContain("-Dtest='com.example.calc.CalcTest#muls'");
  });

  it("gives a canary class to every module with tests, judged with that module's ids", async () => {
    const tree = tempDir("ranex-maven-canaries-");
    write(tree, {
      "pom.xml": "<project><modules><module>core</module><module>app</module><module>docs</module></modules><dependencies><dependency><artifactId>junit-jupiter</artifactId></dependency></dependencies></project>\n",
      "core/pom.xml": "<project/>\n", "core/src/test/java/ex/CoreTest.java": "class CoreTest {}\n",
      "app/pom.xml": "<project/>\n", "app/src/test/java/ex/AppTest.java": "class AppTest {}\n",
      "docs/pom.xml": "<project/>\n",
    });
    const placed = await maven.canary({ command: MAVEN_TEST_COMMAND, treeDir: tree, hostDir: "", seenAs: "", values: { word: "sortslonglist", right: 7, wrong: 8 } });
    if ("note" in placed) throw new Error(placed.note);
    expect(placed.treeFiles?.map((f) => f.replace(/[A-Za-z]+Test\.java$/, "*"))).toEqual(["app/src/test/java/*", "core/src/test/java/*"]);
    expect(placed.members.map((m) => [m.inBinary?.label, m.inBinary?.ids, m.expect])).toEqual([
      ["module app", "^app/", "fail"], ["module app", "^app/", "fail"], ["module app", "^app/", "pass"],
      ["module core", "^core/", "fail"], ["module core", "^core/", "fail"], ["module core", "^core/", "pass"],
    ]);
    expect(new Set(placed.members.map((m) => m.name)).size).toBe(6);
    for (const file of placed.treeFiles ?? []) expect(readFileSync(join(tree, file), "utf8")).toContain("@org.junit.jupiter.api.Test");
  });

  it("init: pom.xml, frozen src/test, Debian's /etc folders the JDK and Maven link into, read-only", async () => {
    const tree = tempDir("ranex-maven-init-");
    write(tree, TREE);
    const found = await detectTestRunner(tree);
    expect(found).toMatchObject({ kind: "maven", testFiles: ["src/test/**", "**/src/test/**"], sandboxReadonly: ["/etc/java-17-openjdk", "/etc/maven"] });
    expect(testCommand(found)?.command).toBe(MAVEN_TEST_COMMAND);
  });
});
