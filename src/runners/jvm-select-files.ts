// Running only the PR's new test classes (issue 22: its own runs, `head+new` and `base+new`) with
// Maven Surefire and Gradle: each new test source names one class by its path. Surefire's -Dtest
// overrides the includes and excludes, so it is given only classes Surefire's default includes
// would run anyway, and never for a build that configures its own; Gradle's --tests narrows what
// the test task's own scan finds, so any class may be named. A class that then does not run (a
// module outside the reactor, a package clause that is not the path) leaves its file out of the
// report, and the gate runs the whole suite (src/measure/select.ts `filesUnproven`).
import { posix } from "node:path";
import { readTreeFile } from "./tree-read.js";
import type { FileSelectContext, Selection } from "./types.js";

/** A test source: its project folder ("" for the root), its language folder, its class. */
function testClass(file: string, languages: string): { project: string; className: string; simple: string } | null {
  const match = new RegExp(`^(?:(.+)/)?src/test/(?:${languages})/((?:[A-Za-z_]\\w*/)*)([A-Za-z_]\\w*)\\.(?:java|kt|groovy)$`).exec(file);
  if (match === null) return null;
  const simple = match[3] as string;
  return { project: match[1] ?? "", className: `${(match[2] ?? "").replace(/\//g, ".")}${simple}`, simple };
}

// Surefire's default includes (**/Test*.java, **/*Test.java, **/*TestCase.java; **/*Tests.java from 2.20).
const SUREFIRE_DEFAULT = /^Test\w*$|^\w*Test$|^\w*TestCase$/;
const SUREFIRE_TESTS = /^\w*Tests$/;
// A pom that chooses its tests itself: -Dtest would override that choice.
const OWN_CHOICE = /<(?:includes|excludes|includesFile|excludesFile|test|testSourceDirectory|dependenciesToScan|runOrder)>/;

/** Whether the pom pins Surefire at 2.20 or later (which includes *Tests by default). */
function surefireAtLeast220(pom: string): boolean {
  const version = /<artifactId>maven-surefire-plugin<\/artifactId>\s*<version>(\d+)\.(\d+)/.exec(pom);
  return version !== null && (Number(version[1]) > 2 || (Number(version[1]) === 2 && Number(version[2]) >= 20));
}

/** `mvn test` with `-Dtest=<class>,...`, the new test classes by their fully qualified names. */
export function mavenFiles({ command, files, treeDir }: FileSelectContext, canSelect: (command: string) => boolean): Selection | null {
  if (!canSelect(command) || files.length === 0) return null;
  const root = readTreeFile(treeDir, "pom.xml");
  if (root === null || OWN_CHOICE.test(root)) return null;
  const classes = new Set<string>();
  for (const file of files) {
    const found = testClass(file, "java");
    if (found === null) return null;
    const pom = found.project === "" ? root : readTreeFile(treeDir, posix.join(found.project, "pom.xml"));
    if (pom === null || OWN_CHOICE.test(pom)) return null;
    const included = SUREFIRE_DEFAULT.test(found.simple) || (SUREFIRE_TESTS.test(found.simple) && surefireAtLeast220(`${root}\n${pom}`));
    if (!included) return null;
    classes.add(found.className);
  }
  return {
    command: command.replace(/(^|[\s;&|(/])(mvnw?)\b/, (_m, before: string, mvn: string) => `${before}${mvn} -Dtest='${[...classes].sort().join(",")}' -Dsurefire.failIfNoSpecifiedTests=false`),
    env: {}, how: "mvn -Dtest, by class",
  };
}

/** `gradle test --tests <class>`, the new test classes by their fully qualified names. */
export function gradleFiles({ command, files }: FileSelectContext, canSelect: (command: string) => boolean): Selection | null {
  if (!canSelect(command) || files.length === 0) return null;
  const classes = new Set<string>();
  for (const file of files) {
    const found = testClass(file, "java|kotlin|groovy");
    if (found === null) return null;
    classes.add(found.className);
  }
  const args = [...classes].sort().map((c) => `--tests '${c}'`).join(" ");
  // A project none of whose classes are named must not fail the build (Gradle's default does).
  const init = `-I "$RANEX_REPORTERS/gradle/select.gradle"`;
  return {
    command: command.replace(/((?:^|[\s;&|(/])(?:gradle|gradlew)\b[^;&|]*?\s)test(?=\s|$|[;&|)])/, (_m, before: string) => `${before}${init} test ${args}`),
    env: {}, how: "gradle test --tests, by class",
  };
}
