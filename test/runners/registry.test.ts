import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runnersOf } from "../../src/measure/canary.js";
import { canSelect } from "../../src/measure/select.js";
import { detectTestRunner } from "../../src/policy/detect.js";
import { renderStarter } from "../../src/policy/init.js";
import { parsePolicy, POLICY_PATH } from "../../src/policy/index.js";
import { CARGO_TEST_COMMAND } from "../../src/runners/cargo.js";
import { GO_TEST_COMMAND } from "../../src/runners/go.js";
import { RUNNERS, readerFor } from "../../src/runners/index.js";
import { MAVEN_TEST_COMMAND } from "../../src/runners/maven.js";
import { tempDir } from "../helpers/git-repo.js";

// The registry: one module per runner, asked in order by init, and by a run for its canary,
// selection and report format.
function repo(files: Record<string, string>): string {
  const dir = tempDir("ranex-registry-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("the runner registry", () => {
  it("has one module per runner, each named once", () => {
    const names = RUNNERS.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(["pytest", "unittest", "node-test", "vitest", "jest", "mocha", "go", "cargo", "maven"]));
  });

  it.each([
    [{ "go.mod": "module x\n" }, "go"],
    [{ "Cargo.toml": '[package]\nname = "x"\n' }, "cargo"],
    [{ "pom.xml": "<project/>\n" }, "maven"],
    [{ "build.gradle.kts": "plugins { java }\n" }, "gradle"],
    // A pom.xml beside Gradle's files: Maven's runner answers first.
    [{ "pom.xml": "<project/>\n", "build.gradle": "apply plugin: 'java'\n" }, "maven"],
    // package.json's test script says what the owner runs, before any compiled ecosystem's file.
    [{ "go.mod": "module x\n", "package.json": '{"scripts":{"test":"vitest run"}}' }, "vitest"],
    // pytest's own evidence comes before a Cargo.toml (a Python package with a Rust extension).
    [{ "Cargo.toml": '[package]\nname = "x"\n', "pytest.ini": "[pytest]\n" }, "pytest"],
  ])("init detects %j as %s, and the starter it writes validates", async (files, kind) => {
    const found = await detectTestRunner(repo(files));
    expect(found.kind).toBe(kind);
    const parsed = parsePolicy(renderStarter(found), POLICY_PATH);
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
  });

  it("tells which runners a command starts, whether it can select, and reads each native format only where it claims it", () => {
    expect(runnersOf(GO_TEST_COMMAND)).toEqual(["go"]);
    expect(runnersOf(CARGO_TEST_COMMAND)).toEqual(["cargo"]);
    expect(runnersOf(MAVEN_TEST_COMMAND)).toEqual(["maven"]);
    // Piped through go-junit-report it is JUnit: the go module does not claim it.
    expect(runnersOf("go test ./... | go-junit-report > $RANEX_JUNIT")).toEqual([]);
    for (const command of [GO_TEST_COMMAND, CARGO_TEST_COMMAND, MAVEN_TEST_COMMAND]) expect(canSelect({ command })).toBe(true);
    expect(readerFor(GO_TEST_COMMAND, '{"Action":"start","Package":"x"}\n')?.format).toBe("go test -json");
    expect(readerFor(CARGO_TEST_COMMAND, "     Running unittests src/lib.rs (target/debug/deps/x-0123456789abcdef)\n\nrunning 0 tests\n")?.format).toBe("cargo test");
    expect(readerFor(GO_TEST_COMMAND, "<testsuites/>")).toBeNull();
    expect(readerFor("pytest", "plain words")).toBeNull();
  });
});
