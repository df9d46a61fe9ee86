import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { gradle } from "../../src/runners/gradle.js";
import { gradleProjects, jvmModuleDirs, mavenReactor } from "../../src/runners/jvm-modules.js";
import { maven, MAVEN_TEST_COMMAND } from "../../src/runners/maven.js";
import { onlyTestGoal } from "../../src/runners/maven-select.js";
import { tempDir } from "../helpers/git-repo.js";

// The JVM builds' real module lists (Maven's reactor, Gradle's settings) at any depth, the canary in
// a module three folders down, and Maven's selection that names only the selected modules (-pl, -am
// when a sibling is needed) and skips the build on a tree a run of the same command already built.

function write(dir: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const pom = (artifact: string, body = ""): string => `<project><parent><artifactId>parent</artifactId></parent><artifactId>${artifact}</artifactId>${body}</project>\n`;
const JUNIT = "<dependencies><dependency><artifactId>junit-jupiter</artifactId></dependency></dependencies>";

// A reactor: core, app (depends on core), and libs, an aggregator whose module is three folders down.
const REACTOR = {
  "pom.xml": `<project><artifactId>parent</artifactId><packaging>pom</packaging><modules><module>core</module><module>app</module><module>libs</module><!-- <module>old</module> --><module>../outside</module></modules>${JUNIT}</project>\n`,
  "core/pom.xml": pom("core"), "core/src/test/java/ex/CalcTest.java": "class CalcTest {}\n",
  "app/pom.xml": pom("app", "<dependencies><dependency><groupId>ex</groupId><artifactId>core</artifactId></dependency></dependencies>"),
  "app/src/test/java/ex/AppTest.java": "class AppTest {}\n",
  "libs/pom.xml": pom("libs", "<packaging>pom</packaging><modules><module>text/deep/round</module></modules>"),
  "libs/text/deep/round/pom.xml": pom("round"), "libs/text/deep/round/src/test/java/ex/RoundTest.java": "class RoundTest {}\n",
  "old/pom.xml": pom("old"), "old/src/test/java/ex/OldTest.java": "class OldTest {}\n",
};

const select = (treeDir: string, ids: string[], built = false, command = MAVEN_TEST_COMMAND) =>
  maven.select({ command, ids, listFile: "", backend: "bwrap", common: {}, treeDir, built });

describe("JVM module lists", () => {
  it("Maven's reactor: every <modules> entry, recursively, at any depth; comments and folders outside the tree left out", () => {
    const tree = write(tempDir("ranex-reactor-"), REACTOR);
    expect(mavenReactor(tree)).toEqual(["app", "core", "libs", "libs/text/deep/round"]);
    expect(jvmModuleDirs(tree, "maven")).toEqual(["app", "core", "libs", "libs/text/deep/round"]);
    // No list declared: the folders one or two down with a build file, as before.
    const single = write(tempDir("ranex-single-"), { "pom.xml": "<project/>\n", "tools/pom.xml": "<project/>\n" });
    expect(mavenReactor(single)).toBeNull();
    expect(jvmModuleDirs(single, "maven")).toEqual(["tools"]);
  });

  it("Gradle's settings: include in Groovy and Kotlin, a project path's `:` as folders", () => {
    const groovy = write(tempDir("ranex-settings-"), { "settings.gradle": "rootProject.name = 'x'\n// include 'commented'\ninclude 'core', ':libs:text:round'\ninclude(\"app\")\n" });
    expect(gradleProjects(groovy)).toEqual(["app", "core", "libs/text/round"]);
    const kotlin = write(tempDir("ranex-settings-kts-"), { "settings.gradle.kts": "include(\":a:b:c\", \"d\")\n" });
    expect(gradleProjects(kotlin)).toEqual(["a/b/c", "d"]);
  });

  it("Gradle's settings: a project that settings moves (`projectDir = …`, Groovy and Kotlin) is its new folder", () => {
    const groovy = write(tempDir("ranex-settings-moved-"), {
      "settings.gradle": "include ':core', ':round', 'tools'\nproject(':round').projectDir = file('libs/text/round')\nproject(\":tools\").projectDir = new File(settingsDir, 'build-tools/cli')\n",
    });
    expect(gradleProjects(groovy)).toEqual(["build-tools/cli", "core", "libs/text/round"]);
    const kotlin = write(tempDir("ranex-settings-moved-kts-"), {
      "settings.gradle.kts": "include(\":app\", \":round\")\nproject(\":round\").projectDir = file(\"libs/text/round\")\n// project(\":app\").projectDir = file(\"old\")\nproject(\":app\").projectDir = File(rootDir, \"apps/main\")\n",
    });
    expect(gradleProjects(kotlin)).toEqual(["apps/main", "libs/text/round"]);
    // A folder outside the tree, or one the gate cannot read (a variable), is not a project folder here.
    const outside = write(tempDir("ranex-settings-outside-"), { "settings.gradle": "include ':a', ':b'\nproject(':a').projectDir = file('../elsewhere')\nproject(':b').projectDir = file(dir)\n" });
    expect(gradleProjects(outside)).toEqual(["b"]);
  });

  it("a canary class in a Gradle project settings moves three folders down, whose main code could neuter JUnit's assertions", async () => {
    // As maven-reactor's `neuter-deep`: without a canary in the moved project, a class of its main code
    // named like JUnit's Assert would pass its tests unseen. Before, its folder was taken to be `round/`.
    const tree = write(tempDir("ranex-moved-gradle-"), {
      "settings.gradle": "include ':core', ':round'\nproject(':round').projectDir = file('libs/text/round')\n",
      "build.gradle": "subprojects { dependencies { testImplementation 'junit:junit:4.13.2' } }\n",
      "core/build.gradle": "\n", "core/src/test/java/ex/CalcTest.java": "class CalcTest {}\n",
      "libs/text/round/build.gradle": "\n", "libs/text/round/src/test/java/ex/RoundTest.java": "class RoundTest {}\n",
      "libs/text/round/src/main/java/org/junit/Assert.java": "package org.junit;\npublic class Assert { public static void assertEquals(long a, long b) {} }\n",
    });
    const placed = await gradle.canary({ command: "gradle test", treeDir: tree, hostDir: "", seenAs: "", values: { word: "sortslonglist", right: 7, wrong: 8 } });
    if ("note" in placed) throw new Error(placed.note);
    expect(placed.treeFiles?.map((f) => f.replace(/[A-Za-z]+Test\.java$/, "*"))).toEqual(["core/src/test/java/*", "libs/text/round/src/test/java/*"]);
    expect(placed.members.filter((m) => m.inBinary?.label === "module libs/text/round").map((m) => m.expect)).toEqual(["fail", "fail", "pass"]);
  });

  it("a canary class in a Maven module three folders down, and none in a folder outside the reactor", async () => {
    const tree = write(tempDir("ranex-deep-canary-"), REACTOR);
    const placed = await maven.canary({ command: MAVEN_TEST_COMMAND, treeDir: tree, hostDir: "", seenAs: "", values: { word: "sortslonglist", right: 7, wrong: 8 } });
    if ("note" in placed) throw new Error(placed.note);
    expect(placed.treeFiles?.map((f) => f.replace(/[A-Za-z]+Test\.java$/, "*"))).toEqual(["app/src/test/java/*", "core/src/test/java/*", "libs/text/deep/round/src/test/java/*"]);
    expect(placed.members.filter((m) => m.inBinary?.label === "module libs/text/deep/round").map((m) => [m.inBinary?.ids, m.expect]))
      .toEqual([["^libs\\/text\\/deep\\/round/", "fail"], ["^libs\\/text\\/deep\\/round/", "fail"], ["^libs\\/text\\/deep\\/round/", "pass"]]);
  });

  it("a canary class in a Gradle project three folders down, from settings.gradle", async () => {
    const tree = write(tempDir("ranex-deep-gradle-"), {
      "settings.gradle": "include ':core', ':libs:text:round'\n", "build.gradle": "subprojects { dependencies { testImplementation 'junit:junit:4.13.2' } }\n",
      "core/build.gradle": "\n", "core/src/test/java/ex/CalcTest.java": "class CalcTest {}\n",
      "libs/text/round/build.gradle": "\n", "libs/text/round/src/test/java/ex/RoundTest.java": "class RoundTest {}\n",
    });
    const placed = await gradle.canary({ command: "gradle test", treeDir: tree, hostDir: "", seenAs: "", values: { word: "sortslonglist", right: 7, wrong: 8 } });
    if ("note" in placed) throw new Error(placed.note);
    expect(placed.treeFiles?.map((f) => f.replace(/[A-Za-z]+Test\.java$/, "*"))).toEqual(["core/src/test/java/*", "libs/text/round/src/test/java/*"]);
  });
});

describe("Maven's selection", () => {
  it("names only the selected modules (-pl), with -am when one needs a sibling built", () => {
    const tree = write(tempDir("ranex-select-"), REACTOR);
    expect(select(tree, ["core/ex.CalcTest#muls"])?.command).toContain("mvn -Dtest='ex.CalcTest#muls' -Dsurefire.failIfNoSpecifiedTests=false -pl 'core' -o ");
    expect(select(tree, ["app/ex.AppTest#twice", "core/ex.CalcTest#muls"])?.command).toContain("-pl 'app,core' -am -o ");
    expect(select(tree, ["libs/text/deep/round/ex.RoundTest#halfEven"])?.how).toBe("mvn -Dtest, -pl");
    // The lifecycle still builds (the tree is not built yet): the goal stays `test`.
    expect(select(tree, ["core/ex.CalcTest#muls"])?.command).toMatch(/ test; |test$| test /);
    // A module outside the reactor, or a root id: the whole reactor, as before.
    expect(select(tree, ["old/ex.OldTest#x"])?.command).not.toContain("-pl");
    expect(select(tree, ["ex.CalcTest#muls"])?.command).not.toContain("-pl");
  });

  it("on a built tree runs surefire:test@default-test alone (the test phase's execution), unless a sibling must be built in the same run", () => {
    const tree = write(tempDir("ranex-select-built-"), REACTOR);
    const core = select(tree, ["core/ex.CalcTest#muls"], true);
    expect(core?.command).toMatch(/-pl 'core' -o -B -q -fae .* surefire:test@default-test$/);
    // Maven's run stands behind the gate's launcher, which skips Maven's start where it can (test/runners/maven-direct.test.ts).
    expect(core?.how).toBe("the gate's JUnit Platform launcher on Surefire's class path, else mvn -Dtest, -pl, surefire:test@default-test on the built tree");
    expect(select(tree, ["app/ex.AppTest#twice"], true)?.command).toMatch(/-pl 'app' -am .* test$/);
    // The root's ids in a reactor: every module runs, so a sibling may be needed: the lifecycle stays.
    expect(select(tree, ["ex.CalcTest#muls"], true)?.command).toMatch(/ test$/);
    const single = write(tempDir("ranex-select-single-"), { "pom.xml": `<project>${JUNIT}</project>\n` });
    expect(select(single, ["ex.CalcTest#muls"], true)?.command).toMatch(/-Dsurefire\.failIfNoSpecifiedTests=false -o .* surefire:test@default-test$/);
  });

  it("leaves a command with other goals or options it cannot read as it was, less -Dtest", () => {
    const tree = write(tempDir("ranex-select-goals-"), REACTOR);
    expect(onlyTestGoal(MAVEN_TEST_COMMAND)).toBe(true);
    expect(onlyTestGoal("mvn -o clean test")).toBe(false);
    expect(onlyTestGoal("mvn -P ci test")).toBe(false);
    const cleaned = select(tree, ["core/ex.CalcTest#muls"], true, "mvn -o clean test");
    expect(cleaned?.command).toBe("mvn -Dtest='ex.CalcTest#muls' -Dsurefire.failIfNoSpecifiedTests=false -o clean test");
  });
});
