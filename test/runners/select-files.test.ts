import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CARGO_TEST_COMMAND, cargo } from "../../src/runners/cargo.js";
import { GO_TEST_COMMAND, go } from "../../src/runners/go.js";
import { selectFilesWith } from "../../src/runners/index.js";
import { pytest } from "../../src/runners/pytest.js";
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
