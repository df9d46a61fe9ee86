// Maven: Surefire's JUnit XML (target/surefire-reports/TEST-*.xml in every module), merged into one
// report by the gate's reporters/junit-merge.sh with the test sources javac rejected as load errors.
// Ids are `<class>#<method>` (`com.example.CalcTest#adds`, `com.example.CalcTest$Inner#zero`), a
// module's `<module>/<class>#<method>` (src/runners/jvm-ids.ts); a test's file is its class's source
// under its module's src/test/java. Dependencies: a local repository filled once
// per pom.xml by setup (one build of the tests, since Surefire resolves
// its JUnit provider only when tests run), read-only in runs, which are offline (`-o`).
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { findBinary } from "./toolchain.js";
import { jvmCanaries } from "./jvm-canary.js";
import { surefireIds } from "./jvm-ids.js";
import { mavenConsoleCheck } from "./maven-console.js";
import { mavenFiles } from "./jvm-select-files.js";
import { mavenSelect } from "./maven-select.js";
import type { Runner } from "./types.js";

export const MAVEN_DEPS_DIR = ".ranex-deps/m2";
const REPO = `-Dmaven.repo.local="$PWD/${MAVEN_DEPS_DIR}"`;

// A test run is short: the JVMs need no optimising compiler and no parallel collector. C1 only and
// the serial collector halve Maven's CPU per run here (12.6-14.3 s user down to 5.4-6.5 s on
// maven-calc), and every judgment runs the suite several times. A repository's .mvn/jvm.config
// still adds its own options after these.
const FAST_JVM = `MAVEN_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"`;

// The gate's reporters/maven-run.sh runs Maven: failing tests do not stop the modules downstream
// (a red target in one module must not hide the others' tests), Maven's output goes to the gate as it
// is printed (its lines about each class are compared with the reports, src/runners/maven-console.ts),
// and the exit status is Maven's when the build failed, else whether Maven printed a failed test: a
// report of failures under an exit 0 is a disagreement the gate refuses. Test output goes to
// Surefire's files, so the output holds Maven's lines and stays under the output limit.
export const MAVEN_TEST_COMMAND =
  `${FAST_JVM} sh "$RANEX_REPORTERS/maven-run.sh" mvn -o -B -q -fae ${REPO} -Dmaven.test.redirectTestOutputToFile=true test`;
// The build in setup leaves target/ folders behind: removed, or every run would see them read-only.
// The test build comes first and decides: it resolves a multi-module build's own modules from the
// reactor, which `dependency:go-offline` alone cannot (a sibling `1.0-SNAPSHOT` is in no registry:
// every setup of zalando/problem failed, issue 22), so go-offline only adds what it can. Failing
// tests or a base that does not compile are the owner's business; a dependency Maven could not
// fetch fails the setup, with Maven's output.
const SETUP_LOG = "/tmp/ranex-maven-setup.log";
export const MAVEN_SETUP_COMMAND =
  `export ${FAST_JVM}; mvn -B -q ${REPO} -Dmaven.test.failure.ignore=true test > ${SETUP_LOG} 2>&1; mvn -B -q ${REPO} dependency:go-offline >/dev/null 2>&1; `
  + `find . -name target -type d -prune -exec rm -rf {} +; `
  + `if grep -qE '^\\[ERROR\\] .*(Could not (resolve|transfer|find artifact)|Non-resolvable|could not be resolved|Unresolveable)' ${SETUP_LOG}; then cat ${SETUP_LOG} >&2; exit 1; fi`;

const runsMaven = (command: string): boolean => /(?:^|[\s;&|(/])(?:mvn|mvnw)\b[^;&|]*\btest\b/.test(command);

/** Host folders outside /usr that Debian's JDK (and Maven, when asked) link into (/etc/java-17-openjdk, /etc/maven). */
export function javaConfigFolders(withMaven = true): string[] {
  const folders = new Set<string>();
  const outside = (path: string): void => {
    if (!path.startsWith("/usr/")) folders.add(path);
  };
  try {
    const mvn = withMaven ? findBinary("mvn", ["/usr/bin"]) : null;
    if (mvn !== null) outside(realpathSync(join(dirname(realpathSync(join(mvn, "mvn"))), "..", "conf")));
  } catch {
    // no conf folder: nothing to mount
  }
  try {
    const java = findBinary("java", ["/usr/bin"]);
    if (java !== null) outside(dirname(realpathSync(join(dirname(realpathSync(join(java, "java"))), "..", "lib", "jvm.cfg"))));
  } catch {
    // a JDK without jvm.cfg links
  }
  return [...folders].sort();
}

export const maven: Runner = {
  name: "maven",
  runs: runsMaven,
  async detect(repo) {
    if (!repo.files.has("pom.xml")) return null;
    const readonly = javaConfigFolders();
    return {
      evidence: "pom.xml", runnerDeclared: true, reporterDeclared: true, install: MAVEN_SETUP_COMMAND,
      testFiles: ["src/test/**", "**/src/test/**"],
      ...(readonly.length > 0 ? { sandboxReadonly: readonly } : {}),
    };
  },
  command: () => ({
    command: MAVEN_TEST_COMMAND,
    note: ["Surefire's reports are merged into one at $RANEX_REPORT; ids are <class>#<method>."],
  }),
  junitIds: surefireIds,
  crossCheck: (report, output) => mavenConsoleCheck(report, output),
  // A canary class in every module's src/test/java: each module's tests run in a JVM of their own (src/runners/jvm-canary.ts).
  canary: (ctx) => jvmCanaries(ctx, "maven"),
  // Only the selected methods, in only their modules, without a second build where the tree is built (src/runners/maven-select.ts).
  select: (ctx) => mavenSelect(ctx, canSelectMaven),
  // The PR's own runs: only its new test classes (src/runners/jvm-select-files.ts).
  selectFiles: (ctx) => mavenFiles(ctx, canSelectMaven),
  canSelect: canSelectMaven,
  repeatNote: "Maven repeats only the targets (the gate names them to Surefire with -Dtest, and their modules with -pl).",
  deps: { keyFiles: ["**/pom.xml", "**/.mvn/**"] },
};

function canSelectMaven(command: string): boolean {
  return runsMaven(command) && !/-Dtest=/.test(command);
}
