import { describe, expect, it } from "vitest";
import { frozenClaim, isFrozen, safetyClaim } from "../../../src/measure/diff/index.js";
import { added, BASE_PATHS, context, deleted, modified, policy, renamed, symlink } from "./builders.js";

// The default frozen set beyond Python and Node (issues 19 and 22): what decides which code runs the
// tests (build files of Go, Rust, Maven, Gradle; loader registries; jest's mocks and setup files)
// is harness at any depth, added or changed; what the tests compare with (golden files, snapshots,
// test resources) is frozen as of the base, like the test files.

const messages = (facts: Parameters<typeof context>[0], over: Parameters<typeof context>[1] = {}) =>
  frozenClaim(context(facts, over)).details.map((d) => d.message);

describe("default frozen set: build files of the compiled ecosystems", () => {
  it("freezes what builds and runs the tests of Go, Rust, Maven and Gradle, at any depth", () => {
    const ctx = context([]);
    const build = [
      "go.mod", "tools/go.mod", "go.work", "go.work.sum",
      "Cargo.toml", "crates/core/Cargo.toml", "build.rs", "crates/core/build.rs", ".cargo/config.toml", ".cargo/config",
      "crates/core/.cargo/config.toml", "rust-toolchain", "rust-toolchain.toml", ".config/nextest.toml",
      "pom.xml", "module-a/pom.xml", ".mvn/extensions.xml", ".mvn/jvm.config", ".mvn/maven.config", ".mvn/wrapper/maven-wrapper.properties",
      "mvnw", "mvnw.cmd",
      "build.gradle", "build.gradle.kts", "app/build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle.properties",
      "init.gradle", "gradle/test.gradle", "gradle/libs.versions.toml", "gradle/wrapper/gradle-wrapper.properties",
      "gradle/wrapper/gradle-wrapper.jar", "gradlew", "gradlew.bat", "buildSrc/src/main/kotlin/conventions.gradle.kts",
      "buildSrc/src/main/java/Conventions.java", "build-logic/src/main/kotlin/Plugin.kt",
    ];
    expect(build.filter((p) => !isFrozen(p, ctx))).toEqual([]);
    const code = [
      "main.go", "cmd/gomod.go", "src/lib.rs", "src/build.rs.txt", "src/builder.rs", "src/main/java/com/x/Pom.java",
      "docs/pom.xml.md", "gradle/README.md", "src/cargo/config.rs", "config/nextest.toml",
    ];
    expect(code.filter((p) => isFrozen(p, ctx))).toEqual([]);
  });

  it("freezes the JVM's plugin registries and jest's mocks and setup files, new ones too", () => {
    const ctx = context([]);
    const loaders = [
      "src/main/resources/META-INF/services/org.junit.jupiter.api.extension.Extension",
      "src/test/resources/junit-platform.properties", "src/main/resources/junit-platform.properties",
      "src/test/resources/mockito-extensions/org.mockito.plugins.MockMaker",
      "__mocks__/fs.js", "src/__mocks__/api.ts", "jest.setup.js", "vitest.setup.ts", "src/setupTests.js", "ava.config.js",
    ];
    expect(loaders.filter((p) => !isFrozen(p, ctx))).toEqual([]);
    expect(messages([added("__mocks__/left-pad.js")])).toEqual(["__mocks__/left-pad.js: added"]);
  });

  it("freezes a Go module's vendor folder (compiled in place of the module cache), only beside a go.mod", () => {
    const ctx = context([], { basePaths: [...BASE_PATHS, "go.mod", "tools/go.mod", "vendor/modules.txt"] });
    expect(isFrozen("vendor/github.com/stretchr/testify/assert/assertions.go", ctx)).toBe(true);
    expect(isFrozen("tools/vendor/x/y.go", ctx)).toBe(true);
    // A vendor folder of another ecosystem (composer, a copied C library) is not Go's.
    expect(isFrozen("vendor/x/y.go", context([]))).toBe(false);
    expect(isFrozen("lib/vendor/x.c", ctx)).toBe(false);
  });
});

describe("default frozen set: dependency manifests say which key releases them", () => {
  it("names the unfreeze entry in the finding of a manifest, and not of other harness", () => {
    expect(messages([modified("go.mod"), modified("crates/core/Cargo.toml"), modified("pom.xml"), added("conftest.py")], {
      basePaths: [...BASE_PATHS, "go.mod", "crates/core/Cargo.toml", "pom.xml"],
    })).toEqual([
      "go.mod: modified; a dependency manifest, frozen by default; release it with unfreeze: ['go.mod']",
      "crates/core/Cargo.toml: modified; a dependency manifest, frozen by default; release it with unfreeze: ['crates/core/Cargo.toml']",
      "pom.xml: modified; a dependency manifest, frozen by default; release it with unfreeze: ['pom.xml']",
      "conftest.py: added",
    ]);
  });

  it("releases exactly the path unfreeze names: the root go.mod, not a nested one", () => {
    const over = { basePaths: [...BASE_PATHS, "go.mod", "tools/go.mod"], policy: policy({ unfreeze: ["go.mod", "build.gradle.kts"] }) };
    expect(frozenClaim(context([modified("go.mod"), modified("build.gradle.kts")], over)).outcome).toBe("pass");
    expect(messages([modified("tools/go.mod")], over)).toEqual([
      "tools/go.mod: modified; a dependency manifest, frozen by default; release it with unfreeze: ['tools/go.mod']",
    ]);
  });

  it("quotes a manifest's path that holds a control character, so the hint cannot forge a line", () => {
    const [message] = messages([added("a\nb/go.mod")]);
    expect(message).not.toContain("\n");
    expect(message).toContain("unfreeze: ['\"a\\nb/go.mod\"']");
  });
});

describe("default frozen set: test data, frozen as of the base", () => {
  const base = [
    ...BASE_PATHS, "testdata/sub.golden", "pkg/parse/testdata/input.json", "src/__snapshots__/view.test.ts.snap",
    "snapshots/calc__render.snap", "src/__fixtures__/user.json", "src/test/resources/expected.csv",
  ];

  it("fails a changed, deleted or renamed golden file, snapshot, fixture or test resource of the base", () => {
    const facts = [
      modified("testdata/sub.golden"), deleted("pkg/parse/testdata/input.json"), modified("src/__snapshots__/view.test.ts.snap"),
      modified("snapshots/calc__render.snap"), modified("src/__fixtures__/user.json"), renamed("src/test/resources/expected.csv", "src/test/resources/old.csv"),
    ];
    expect(messages(facts, { basePaths: base })).toEqual([
      "testdata/sub.golden: modified", "pkg/parse/testdata/input.json: deleted", "src/__snapshots__/view.test.ts.snap: modified",
      "snapshots/calc__render.snap: modified", "src/__fixtures__/user.json: modified",
      "src/test/resources/expected.csv: renamed to src/test/resources/old.csv",
    ]);
  });

  it("lets a PR add test data of its own for its new tests, but not a case twin of the base's or a link into it", () => {
    const ctx = context([added("testdata/mul.golden"), added("src/__snapshots__/mul.test.ts.snap"), added("src/test/resources/mul.csv")], { basePaths: base });
    expect(frozenClaim(ctx)).toMatchObject({ outcome: "pass", details: [] });
    expect(messages([added("testdata/Sub.golden")], { basePaths: base })).toEqual(["testdata/Sub.golden: case-shadows testdata/sub.golden"]);
    expect(messages([symlink("src/golden", "../testdata/sub.golden")], { basePaths: base })).toEqual(["src/golden: symlink into frozen set -> testdata/sub.golden"]);
  });

  it("takes a new binary golden file as test data for diff.safety, not as unreadable code", () => {
    const png = { ...added("testdata/chart.png"), binary: true };
    expect(safetyClaim(context([png], { basePaths: base })).outcome).toBe("pass");
    const so = { ...added("testdata/evil.so"), binary: true };
    expect(safetyClaim(context([so], { basePaths: base })).outcome).toBe("fail");
  });
});
