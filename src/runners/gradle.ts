// Gradle: the JUnit XML of every Test task (build/test-results/<task>/TEST-*.xml in every project),
// merged into one report by the gate's reporters/junit-merge.sh with the test sources javac rejected
// as load errors. Gradle writes the same shape as Surefire (a testsuite per class, testcases with
// classname and name), so the ids are Maven's: `<class>#<method>`, nested classes with `$`.
// The command is `./gradlew` when the wrapper is committed, else the machine's `gradle`.
// Dependencies: a Gradle user home filled once per build files by setup (one `test` build, which
// resolves every configuration the tests use, and the wrapper's distribution), which each run copies
// into its own /tmp: Gradle writes lock files and metadata into its home even offline, so a
// read-only one fails (GRADLE_RO_DEP_CACHE exists only from Gradle 6.2). Runs are `--offline`.
import type { Detection } from "../policy/detect.js";
import { javaConfigFolders } from "./maven.js";
import { findBinary, toolchainFor } from "./toolchain.js";
import { jvmCanaries } from "./jvm-canary.js";
import { surefireIds } from "./jvm-ids.js";
import { gradleFiles } from "./jvm-select-files.js";
import { mavenConsoleCheck } from "./maven-console.js";
import type { Runner } from "./types.js";

export const GRADLE_DEPS_DIR = ".ranex-deps/gradle";
const RUN_HOME = "/tmp/ranex-gradle-home";
const BUILD_FILES = ["build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"];

// Build folders the setup's test build made (and Gradle's project cache), removed afterwards or every
// run would see them read-only; folders the repository had before are left alone.
const OUTPUT_DIRS = `find . -path ./.ranex-deps -prune -o \\( -name build -o -name .gradle \\) -type d -prune -print`;

/**
 * The test command for runs: offline, a writable copy of the setup's Gradle home, the exit status
 * Gradle's own. The gate's init script has Gradle print a line per test class, and the gate's
 * reporters/gradle/run.sh sends Gradle's output to the gate as it is printed: those lines are
 * compared with the JUnit XML (src/runners/maven-console.ts), as Maven's are with Surefire's.
 */
export function gradleTestCommand(gradle: string): string {
  return `rm -rf ${RUN_HOME}; cp -R ${GRADLE_DEPS_DIR} ${RUN_HOME} 2>/dev/null || mkdir -p ${RUN_HOME}; `
    + `sh "$RANEX_REPORTERS/gradle/run.sh" ${gradle} --offline --no-daemon -q --continue -g ${RUN_HOME} ${CONSOLE_INIT} test`;
}

/** The gate's init script that prints a line per test class (reporters/gradle/console.gradle). */
const CONSOLE_INIT = `-I "$RANEX_REPORTERS/gradle/console.gradle"`;

/** Gradle's lines against its reports, for a command that prints them (init's since they exist; an older policy's does not). */
const gradleConsoleCheck: NonNullable<Runner["crossCheck"]> = (report, output, command) =>
  command.includes(CONSOLE_INIT) ? mavenConsoleCheck(report, output, { tool: "Gradle", report: "JUnit report" }) : { contradictions: [], notes: [] };

/**
 * Setup, with the network: one test build fills the Gradle home (the dependencies of every
 * configuration the tests resolve, and the wrapper's distribution). Failing tests on the base are the
 * owner's business, not a failed install; a dependency Gradle could not fetch is.
 */
export function gradleSetupCommand(gradle: string): string {
  return `${OUTPUT_DIRS} > /tmp/ranex-gradle-before; `
    + `${gradle} --no-daemon -q --continue -g "$PWD/${GRADLE_DEPS_DIR}" test > /tmp/ranex-gradle-setup.log 2>&1; `
    + `${OUTPUT_DIRS} | grep -vxF -f /tmp/ranex-gradle-before | while IFS= read -r d; do rm -rf "$d"; done; `
    + `if grep -qE 'Could not (resolve|GET|HEAD|download)|Could not find [a-zA-Z]' /tmp/ranex-gradle-setup.log; then cat /tmp/ranex-gradle-setup.log >&2; exit 1; fi`;
}

// `gradle test`, `./gradlew test`, `gradle --offline ... test` (not `gradle testClasses`).
const runsGradle = (command: string): boolean => /(?:^|[\s;&|(/])(?:gradle|gradlew)\b[^;&|]*\stest(?:\s|$|[;&|)])/.test(command);

/**
 * The one line init gives when the repository is Gradle's and the machine cannot run it: which
 * runner, what is missing, what to install. Null when it can run.
 */
export function gradleMissing(wrapper: boolean, gradleDir: string | null): string | null {
  if (wrapper || gradleDir !== null) return null;
  return "this machine has no gradle and the repository commits no gradlew wrapper, so the tests cannot run here: "
    + "install Gradle (Debian: apt-get install gradle; or a distribution from gradle.org on the PATH) or commit the wrapper, then run ranex init again";
}

export const gradle: Runner = {
  name: "gradle",
  runs: runsGradle,
  async detect(repo) {
    const build = BUILD_FILES.filter((f) => repo.files.has(f));
    if (build.length === 0) return null;
    const wrapper = repo.files.has("gradlew");
    const found = wrapper ? null : findBinary("gradle", ["/usr/bin", "/usr/local/bin", "/opt/gradle/bin"]);
    const missing = gradleMissing(wrapper, found);
    const readonly = javaConfigFolders(false);
    return {
      evidence: `${build.join(", ")}${wrapper ? " and the gradlew wrapper" : ""}${missing === null ? "" : `; ${missing}`}`,
      ...(wrapper ? { launcher: "./gradlew" } : {}),
      runnerDeclared: true, reporterDeclared: true,
      install: gradleSetupCommand(wrapper ? "./gradlew" : "gradle"),
      testFiles: ["src/test/**", "**/src/test/**"],
      toolchain: wrapper ? [] : toolchainFor(found),
      ...(readonly.length > 0 ? { sandboxReadonly: readonly } : {}),
    };
  },
  command: (found: Detection) => ({
    command: gradleTestCommand(found.launcher ?? "gradle"),
    note: ["Gradle's test reports are merged into one at $RANEX_REPORT; ids are <class>#<method>."],
  }),
  junitIds: surefireIds,
  crossCheck: gradleConsoleCheck,
  // A canary class in every project's src/test/java: each project's Test task runs in a JVM of its own (src/runners/jvm-canary.ts).
  canary: (ctx) => jvmCanaries(ctx, "gradle"),
  select({ command, ids }) {
    if (!canSelectGradle(command)) return null;
    const patterns = new Set<string>();
    for (const id of ids) {
      // Gradle's filter names a method `pkg.Class.method` (a nested class `pkg.Outer$Inner.method`).
      const match = /^(?:[\w.@+-]+(?:\/[\w.@+-]+)*\/)?([\w.$]+)#(\w+)/.exec(id);
      if (match?.[1] === undefined || match[2] === undefined) return null;
      patterns.add(`${match[1]}.${match[2]}`);
    }
    if (patterns.size === 0) return null;
    const args = [...patterns].sort().map((p) => `--tests '${p}'`).join(" ");
    // A project whose tests match none of the patterns must not fail the build (Gradle's default does).
    const init = `-I "$RANEX_REPORTERS/gradle/select.gradle"`;
    return {
      command: command.replace(/((?:^|[\s;&|(/])(?:gradle|gradlew)\b[^;&|]*?\s)test(?=\s|$|[;&|)])/, (_m, before: string) => `${before}${init} test ${args}`),
      env: {}, how: "gradle test --tests",
    };
  },
  // The PR's own runs: only its new test classes (src/runners/jvm-select-files.ts).
  selectFiles: (ctx) => gradleFiles(ctx, canSelectGradle),
  canSelect: canSelectGradle,
  repeatNote: "Gradle repeats only the targets (the gate names them to the test task with --tests).",
  deps: { keyFiles: ["**/build.gradle", "**/build.gradle.kts", "**/settings.gradle", "**/settings.gradle.kts", "**/gradle.properties", "**/gradle.lockfile", "**/gradle/libs.versions.toml", "**/gradle/wrapper/gradle-wrapper.properties"] },
};

function canSelectGradle(command: string): boolean {
  return runsGradle(command) && !/--tests\b/.test(command);
}
