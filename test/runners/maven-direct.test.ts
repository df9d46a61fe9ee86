import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { maven, MAVEN_TEST_COMMAND } from "../../src/runners/maven.js";
import { directCommand, whyNotDirect } from "../../src/runners/maven-direct.js";
import { tempDir } from "../helpers/git-repo.js";

// When a repeat on a built Maven tree may skip Maven's start (issue 22; src/runners/maven-direct.ts):
// only where the gate's launcher runs what Surefire would, so a pom that changes the test JVM or
// Surefire's run keeps Maven. The real runs in the sandbox are test/e2e/maven-direct.test.ts.

function write(files: Record<string, string>): string {
  const dir = tempDir("ranex-maven-direct-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const SUREFIRE = "<build><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin></plugins></build>";
const ROOT = (extra = "") => `<project><groupId>ex</groupId><artifactId>parent</artifactId><packaging>pom</packaging><modules><module>core</module><module>app</module></modules>${extra}${SUREFIRE}</project>\n`;
const MODULE = (artifact: string, parent = "<parent><groupId>ex</groupId><artifactId>parent</artifactId></parent>", extra = "") =>
  `<project>${parent}<artifactId>${artifact}</artifactId>${extra}</project>\n`;
const REACTOR = (root = ROOT(), core = MODULE("core")) => ({ "pom.xml": root, "core/pom.xml": core, "app/pom.xml": MODULE("app") });

const select = (tree: string, ids: string[], built = true, command = MAVEN_TEST_COMMAND) =>
  maven.select({ command, ids, listFile: "", backend: "bwrap", common: {}, treeDir: tree, built });
const DIRECT = /^sh "\$RANEX_REPORTERS\/maven-direct\.sh" 'core' 'ex\.CalcTest#adds\+muls'; s=\$\?; \[ "\$s" = 90 \] \|\| exit "\$s"; MAVEN_OPTS=/;

describe("Maven's repeats without Maven's start", () => {
  it("a built tree's repeat of one module's plain methods goes to the gate's launcher first, Maven's selection behind it", () => {
    const tree = write(REACTOR());
    const selection = select(tree, ["core/ex.CalcTest#muls", "core/ex.CalcTest#adds"]);
    expect(selection?.command).toMatch(DIRECT);
    expect(selection?.command).toMatch(/mvn -Dtest='ex\.CalcTest#adds\+muls' -Dsurefire\.failIfNoSpecifiedTests=false -pl 'core' -o .* surefire:test@default-test$/);
    expect(selection?.how).toBe("the gate's JUnit Platform launcher on Surefire's class path, else mvn -Dtest, -pl, surefire:test@default-test on the built tree");
    // A single-module build: the root's own tests.
    const single = write({ "pom.xml": `<project><artifactId>calc</artifactId>${SUREFIRE}</project>\n` });
    expect(select(single, ["ex.CalcTest#muls"])?.command).toMatch(/^sh "\$RANEX_REPORTERS\/maven-direct\.sh" '' 'ex\.CalcTest#muls'; /);
  });

  it("keeps Maven alone where the launcher could not stand for Surefire's run", () => {
    const tree = write(REACTOR());
    const mavenOnly = (ids: string[], built = true, command = MAVEN_TEST_COMMAND, dir = tree) => select(dir, ids, built, command)?.command.startsWith("sh \"$RANEX_REPORTERS/maven-direct.sh\"");
    // Not built yet (the tree's first run), two modules, a nested class or an invocation, the root's ids in a reactor.
    expect(mavenOnly(["core/ex.CalcTest#muls"], false)).toBe(false);
    expect(mavenOnly(["core/ex.CalcTest#muls", "app/ex.AppTest#twice"])).toBe(false);
    expect(mavenOnly(["core/ex.CalcTest$Inner#zero"])).toBeFalsy();
    expect(mavenOnly(["core/ex.CalcTest#addsMany(long, long, long)[1]"])).toBe(false);
    expect(mavenOnly(["ex.CalcTest#muls"])).toBe(false);
    // A command of another shape.
    expect(mavenOnly(["core/ex.CalcTest#muls"], true, "mvn -o -DargLine=-Xmx1g test")).toBe(false);
    expect(mavenOnly(["core/ex.CalcTest#muls"], true, "cd core && mvn -o test")).toBe(false);
    expect(directCommand(MAVEN_TEST_COMMAND)).toBe(true);
    expect(directCommand("mvn -o -B test")).toBe(true);
    expect(directCommand("mvn -o -B test; rm -rf x")).toBe(false);
    expect(directCommand("mvn -o -Pci test")).toBe(false);
  });

  it("keeps Maven alone when a pom changes the test JVM or Surefire's run, up the parent chain", () => {
    const surefireWith = (body: string) => ROOT().replace("<version>3.2.5</version>", `<version>3.2.5</version>${body}`);
    const cases: [string, Record<string, string>][] = [
      ["an argLine", REACTOR(ROOT("<properties><argLine>--add-opens java.base/java.lang=ALL-UNNAMED</argLine></properties>"))],
      ["JaCoCo's agent", REACTOR(ROOT("<build><plugins><plugin><groupId>org.jacoco</groupId><artifactId>jacoco-maven-plugin</artifactId></plugin></plugins></build>"))],
      ["Surefire's environment", REACTOR(surefireWith("<configuration><environmentVariables><X>1</X></environmentVariables></configuration>"))],
      ["Surefire's working directory beside settings it runs the same with", REACTOR(surefireWith("<configuration><excludes><exclude>**/LR*.java</exclude></excludes><workingDirectory>/tmp</workingDirectory></configuration>"))],
      ["an execution of Surefire's own", REACTOR(surefireWith("<executions><execution><id>more</id></execution></executions>"))],
      ["a provider of Surefire's own", REACTOR(surefireWith("<dependencies><dependency><artifactId>surefire-junit47</artifactId></dependency></dependencies>"))],
      ["a forkCount property", REACTOR(ROOT("<properties><forkCount>0</forkCount></properties>"))],
      ["a parent from a registry", REACTOR(ROOT(), MODULE("core", "<parent><groupId>org.example</groupId><artifactId>corp-parent</artifactId><relativePath/></parent>"))],
      ["a parent the relative path does not hold", REACTOR(ROOT(), MODULE("core", "<parent><artifactId>other</artifactId></parent>"))],
      ["options for every run", { ...REACTOR(), ".mvn/maven.config": "-DargLine=-Xmx1g\n" }],
    ];
    for (const [what, files] of cases) {
      const tree = write(files);
      expect(whyNotDirect(tree, "core"), what).not.toBeNull();
      expect(select(tree, ["core/ex.CalcTest#muls"])?.command, what).toMatch(/^MAVEN_OPTS=/);
    }
    // A comment that names an argLine changes nothing.
    expect(whyNotDirect(write(REACTOR(ROOT("<!-- no argLine here -->"))), "core")).toBeNull();
    // Settings a direct repeat runs the same with (java-diff-utils' poms have these): -Dtest overrides
    // the excludes; the fork's system properties are set by the launcher from its report.
    const same = REACTOR(surefireWith("<configuration><excludes><exclude>**/LR*.java</exclude></excludes></configuration>"),
      MODULE("core", undefined, `<build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId><configuration><trimStackTrace>false</trimStackTrace>
        <systemPropertyVariables><java.util.logging.config.file>target/test-classes/logging.properties</java.util.logging.config.file></systemPropertyVariables></configuration></plugin></plugins></build>`));
    expect(whyNotDirect(write(same), "core")).toBeNull();
  });
});
