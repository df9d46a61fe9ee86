import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CARGO_TEST_COMMAND, cargo } from "../../src/runners/cargo.js";
import { GO_TEST_COMMAND, go } from "../../src/runners/go.js";
import { selectFilesWith } from "../../src/runners/index.js";
import { pytest } from "../../src/runners/pytest.js";
import { nodeTest } from "../../src/runners/node-test.js";
import { jest } from "../../src/runners/jest.js";
import { vitest } from "../../src/runners/vitest.js";
import { mocha } from "../../src/runners/mocha.js";
import { MAVEN_TEST_COMMAND, maven } from "../../src/runners/maven.js";
import { gradle, gradleTestCommand } from "../../src/runners/gradle.js";
import { tempDir } from "../helpers/git-repo.js";

// Selecting whole test files for the PR's own runs (issue 22): which command each runner writes, and
// when it refuses (then the whole suite runs). That a selected run reports what it must is shown on
// real runs in test/judge/own-runs-selected.test.ts.
function tree(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const ctx = (treeDir: string, files: string[]) => ({ files, treeDir, backend: "bwrap" as const, common: { RANEX_SELECT_FILE: "/r/list" } });

describe("go: the packages holding the new test files, in place of ./...", () => {
  const dir = tree({ "go.mod": "module example.com/m\n", "calc_test.go": "", "pkg/a/a_test.go": "", "nested/go.mod": "module x\n", "nested/n_test.go": "" });
  it("names each package once, the root as .", () => {
    const selection = go.selectFiles?.({ command: GO_TEST_COMMAND, ...ctx(dir, ["calc_test.go", "pkg/a/a_test.go", "pkg/a/b_test.go"]) });
    expect(selection?.command).toBe(GO_TEST_COMMAND.replace(" ./... ", " . ./pkg/a "));
    expect(go.runs(selection?.command ?? "")).toBe(true);
  });
  it("refuses what ./... would not test, and files that are not Go tests", () => {
    for (const files of [["testdata/x_test.go"], ["vendor/v/x_test.go"], ["_old/x_test.go"], ["pkg/.hidden/x_test.go"], ["nested/n_test.go"], ["calc_test.go", "tests/data.json"]]) {
      expect(go.selectFiles?.({ command: GO_TEST_COMMAND, ...ctx(dir, files) }), files.join()).toBeNull();
    }
    // A command that already chose its packages or tests is not narrowed.
    expect(go.selectFiles?.({ command: GO_TEST_COMMAND.replace("./...", "./pkg/..."), ...ctx(dir, ["calc_test.go"]) })).toBeNull();
  });
});

describe("cargo: the new integration test files as --test targets", () => {
  const manifest = '[package]\nname = "calc"\nversion = "0.1.0"\n';
  it("adds one --test per file before the report's redirect", () => {
    const dir = tree({ "Cargo.toml": manifest });
    const selection = cargo.selectFiles?.({ command: CARGO_TEST_COMMAND, ...ctx(dir, ["tests/mul_more.rs", "tests/big/main.rs"]) });
    expect(selection?.command).toBe(CARGO_TEST_COMMAND.replace(' > "$RANEX_REPORT"', ' --test big --test mul_more > "$RANEX_REPORT"'));
  });
  it("refuses files that are no target of their own, and packages that choose their targets", () => {
    const plain = tree({ "Cargo.toml": manifest });
    for (const files of [["tests/common/mod.rs"], ["src/extra.rs"], ["tests/mul_more.rs", "tests/data/in.txt"]]) {
      expect(cargo.selectFiles?.({ command: CARGO_TEST_COMMAND, ...ctx(plain, files) }), files.join()).toBeNull();
    }
    for (const own of [`${manifest}autotests = false\n`, `${manifest}\n[[test]]\nname = "x"\npath = "tests/mul_more.rs"\n`, '[workspace]\nmembers = ["a"]\n']) {
      expect(cargo.selectFiles?.({ command: CARGO_TEST_COMMAND, ...ctx(tree({ "Cargo.toml": own }), ["tests/mul_more.rs"]) })).toBeNull();
    }
    expect(cargo.selectFiles?.({ command: CARGO_TEST_COMMAND.replace("cargo test", "cargo test --workspace"), ...ctx(plain, ["tests/mul_more.rs"]) })).toBeNull();
  });
});

describe("pytest: the gate's plugin, by file", () => {
  it("selects .py files through the plugin, and nothing else", () => {
    const selection = pytest.selectFiles?.({ command: "python3 -m pytest tests", ...ctx(tempDir(), ["tests/test_x.py"]) });
    expect(selection?.env).toMatchObject({ RANEX_SELECT_BY: "file", RANEX_SELECT_FILE: "/r/list", PYTEST_ADDOPTS: "-p ranex_select" });
    expect(pytest.selectFiles?.({ command: "python3 -m pytest tests", ...ctx(tempDir(), ["tests/test_x.py", "tests/data.csv"]) })).toBeNull();
  });
  it("a command that starts more than one runner is not narrowed", () => {
    expect(selectFilesWith("python3 -m pytest tests && node --test", ctx(tempDir(), ["tests/test_x.py"]))).toBeNull();
    expect(selectFilesWith("python3 -m pytest tests", ctx(tempDir(), ["tests/test_x.py"]))?.how).toBe("pytest plugin, by file");
  });
});

describe("node --test: the files as its arguments, each one the command itself would run", () => {
  const dir = tree({ "test/calc.test.js": "", "src/x.test.js": "", "lib/a.js": "" });
  const GATE = 'node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT"';
  it("replaces the command's paths with the new files", () => {
    expect(nodeTest.selectFiles?.({ command: GATE, ...ctx(dir, ["test/mul.test.js", "src/y-test.mjs"]) })?.command).toBe(`${GATE} test/mul.test.js src/y-test.mjs`);
    expect(nodeTest.selectFiles?.({ command: `${GATE} test/`, ...ctx(dir, ["test/sub/mul.js"]) })?.command).toBe(`${GATE} test/sub/mul.js`);
    expect(nodeTest.selectFiles?.({ command: `${GATE} test/calc.test.js lib/a.js`, ...ctx(dir, ["lib/a.js"]) })?.command).toBe(`${GATE} test/calc.test.js lib/a.js`.replace(" test/calc.test.js", ""));
  });
  it("refuses a file the command would not run, Node's own reporter, and words it cannot read for certain", () => {
    for (const [command, files] of [
      [GATE, ["src/mul.spec.js"]], [GATE, ["test/.hidden/x.test.js"]], [GATE, ["test/data.json"]],
      [`${GATE} test/`, ["src/mul.test.js"]], [`${GATE} 'test/**/*.js'`, ["test/mul.test.js"]],
      ['node --test --test-reporter=junit --test-reporter-destination="$RANEX_JUNIT"', ["test/mul.test.js"]],
      [`${GATE} --some-option value`, ["test/mul.test.js"]], [`npm run build && ${GATE}`, ["test/mul.test.js"]], [`${GATE} > log`, ["test/mul.test.js"]],
    ] as [string, string[]][]) {
      expect(nodeTest.selectFiles?.({ command, ...ctx(dir, files) }), `${command} ${files.join()}`).toBeNull();
    }
  });
  // yargs/yargs-parser's shape (init keeps `npm run pretest` before the runner): the steps run as
  // written and the runner's own command is narrowed; the run proves it as any selection does.
  it("narrows the runner after steps joined by &&, keeping the steps", () => {
    expect(selectFilesWith(`npm run pretest && ${GATE} test/`, ctx(dir, ["test/mul.test.js"]))?.command).toBe(`npm run pretest && ${GATE} test/mul.test.js`);
    expect(selectFilesWith(`rm -rf 'a && b' && npm run build && ${GATE}`, ctx(dir, ["test/mul.test.js"]))?.command).toBe(`rm -rf 'a && b' && npm run build && ${GATE} test/mul.test.js`);
    // The last step is not the runner, or the runner would not run the file: the whole suite runs.
    expect(selectFilesWith(`${GATE} && echo done`, ctx(dir, ["test/mul.test.js"]))).toBeNull();
    expect(selectFilesWith(`npm run pretest && ${GATE} test/`, ctx(dir, ["src/mul.test.js"]))).toBeNull();
  });
  it("through the TAP launcher, the launcher selects: the command is kept", () => {
    const command = `node "$RANEX_REPORTERS/tap-run.cjs" node-test 'test/**/*.js'`;
    expect(nodeTest.selectFiles?.({ command, ...ctx(dir, ["test/mul.test.js"]) })).toEqual({ command, env: { RANEX_SELECT_FILE: "/r/list", RANEX_SELECT_BY: "file" }, how: "the TAP launcher, by file" });
    expect(selectFilesWith(`node "$RANEX_REPORTERS/tap-run.cjs" tape 'test/*.js'`, ctx(dir, ["test/mul.js"]))?.how).toBe("the TAP launcher, by file");
  });
});

describe("the launchers of jest, vitest and mocha: the files in the list, the command kept", () => {
  const byFile = { RANEX_SELECT_FILE: "/r/list", RANEX_SELECT_BY: "file" };
  it("jest and vitest only when the command names no test paths or filters of its own", () => {
    const jestCommand = 'node "$RANEX_REPORTERS/jest-run.cjs" --config jest.config.js --ci';
    expect(jest.selectFiles?.({ command: jestCommand, ...ctx(tempDir(), ["test/a.test.js"]) })).toEqual({ command: jestCommand, env: byFile, how: "jest launcher, by test path pattern" });
    for (const own of ["test/unit", "--testPathPatterns unit", "--runTestsByPath test/a.test.js", "--selectProjects a", "--unknown value"]) {
      expect(jest.selectFiles?.({ command: `node "$RANEX_REPORTERS/jest-run.cjs" ${own}`, ...ctx(tempDir(), ["test/a.test.js"]) }), own).toBeNull();
    }
    expect(jest.selectFiles?.({ command: "npx jest --ci", ...ctx(tempDir(), ["test/a.test.js"]) })).toBeNull();
    const vitestLaunched = 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests';
    expect(vitest.selectFiles?.({ command: vitestLaunched, ...ctx(tempDir(), ["test/a.test.ts"]) })).toEqual({ command: vitestLaunched, env: byFile, how: "vitest launcher, by file filter" });
    expect(vitest.selectFiles?.({ command: `${vitestLaunched} test/unit`, ...ctx(tempDir(), ["test/a.test.ts"]) })).toBeNull();
  });
  it("vitest's own command gets the files as its filters", () => {
    const own = 'npx vitest run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests';
    expect(vitest.selectFiles?.({ command: own, ...ctx(tempDir(), ["test/a b.test.ts", "src/x.spec.ts"]) })?.command).toBe(`${own} 'test/a b.test.ts' src/x.spec.ts`);
    for (const command of [`${own} unit`, `${own} --dir src`, "npx vitest --reporter=junit", `${own} && echo done`]) {
      expect(vitest.selectFiles?.({ command, ...ctx(tempDir(), ["test/a.test.ts"]) }), command).toBeNull();
    }
    expect(vitest.selectFiles?.({ command: own, ...ctx(tempDir(), ["test/a:1.test.ts"]) })).toBeNull();
  });
  it("mocha through its launcher, whatever spec the command gives (the launcher keeps only the files mocha collects)", () => {
    const command = 'node "$RANEX_REPORTERS/mocha-run.cjs" test/ --timeout 5000';
    expect(mocha.selectFiles?.({ command, ...ctx(tempDir(), ["test/b.js"]) })).toEqual({ command, env: byFile, how: "mocha launcher, by spec file" });
    expect(mocha.selectFiles?.({ command: "npx mocha test/", ...ctx(tempDir(), ["test/b.js"]) })).toBeNull();
  });
});

describe("Maven and Gradle: the new test classes by name", () => {
  const pom = "<project><build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin></plugins></build></project>";
  it("Maven: -Dtest with the classes Surefire's default includes would run, never for a pom that chooses its own", () => {
    const dir = tree({ "pom.xml": pom, "core/pom.xml": "<project/>" });
    const selection = maven.selectFiles?.({ command: MAVEN_TEST_COMMAND, ...ctx(dir, ["src/test/java/com/example/MulTest.java", "core/src/test/java/x/TestDiv.java", "src/test/java/AddTests.java"]) });
    expect(selection?.command).toBe(MAVEN_TEST_COMMAND.replace(" mvn ", " mvn -Dtest='AddTests,com.example.MulTest,x.TestDiv' -Dsurefire.failIfNoSpecifiedTests=false "));
    expect(maven.runs(selection?.command ?? "")).toBe(true);
    for (const files of [["src/test/java/com/example/MulHelper.java"], ["src/test/java/com/example/MulIT.java"], ["src/test/resources/data.txt"], ["src/main/java/Mul.java"]]) {
      expect(maven.selectFiles?.({ command: MAVEN_TEST_COMMAND, ...ctx(dir, files) }), files.join()).toBeNull();
    }
    // Surefire before 2.20 does not include *Tests: -Dtest would run a class the command does not.
    expect(maven.selectFiles?.({ command: MAVEN_TEST_COMMAND, ...ctx(tree({ "pom.xml": "<project/>" }), ["src/test/java/AddTests.java"]) })).toBeNull();
    const own = tree({ "pom.xml": pom.replace("</version>", "</version><configuration><includes><include>**/*Spec.java</include></includes></configuration>") });
    expect(maven.selectFiles?.({ command: MAVEN_TEST_COMMAND, ...ctx(own, ["src/test/java/MulTest.java"]) })).toBeNull();
  });
  it("Gradle: --tests with each class, and the gate's init script so a project without them is no failed build", () => {
    const command = gradleTestCommand("gradle");
    const selection = gradle.selectFiles?.({ command, ...ctx(tempDir(), ["src/test/java/com/example/MulTest.java", "app/src/test/kotlin/a/DivSpec.kt"]) });
    expect(selection?.command).toBe(command.replace(/ test$/, ` -I "$RANEX_REPORTERS/gradle/select.gradle" test --tests 'a.DivSpec' --tests 'com.example.MulTest'`));
    expect(gradle.selectFiles?.({ command, ...ctx(tempDir(), ["src/test/resources/x.txt"]) })).toBeNull();
  });
});
