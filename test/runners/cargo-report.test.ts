import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { treeResolver } from "../../src/measure/junit-read.js";
import { parseCargo } from "../../src/runners/cargo-report.js";
import { tempDir } from "../helpers/git-repo.js";

// cargo test's output: which binaries cargo (the parent process) saw fail is evidence the test
// binaries cannot print for themselves (issue 19).
function tree(): string {
  const dir = tempDir("ranex-cargo-report-");
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "tests"));
  writeFileSync(join(dir, "Cargo.toml"), '[package]\nname = "calc"\nversion = "0.1.0"\n');
  writeFileSync(join(dir, "src/lib.rs"), "");
  writeFileSync(join(dir, "tests/calc.rs"), "");
  return dir;
}

const LIB = ["     Running unittests src/lib.rs (target/debug/deps/calc-679e95d869174437)", "", "running 2 tests", "test canary::fails ... FAILED", "test tests::shows ... ok", "", "test result: FAILED. 1 passed; 1 failed", ""];
const CALC = ["     Running tests/calc.rs (target/debug/deps/calc-22e5dbad83567ceb)", "", "running 3 tests", "test adds ... ok", "test canary::fails ... FAILED", "test muls ... ok", "", "test result: ok. 3 passed; 0 failed", ""];

describe("cargo's own word on each test binary", () => {
  it("a binary that printed failures but exited 0 (no `error: test failed` from cargo) has its passes read as errored", () => {
    const dir = tree();
    const text = [...LIB, "error: test failed, to rerun pass `--lib`", ...CALC, "error: 1 target failed:", "    `--lib`"].join("\n");
    const report = parseCargo(text, treeResolver(dir), dir);
    expect(Object.fromEntries(report.cases.map((c) => [c.id, c.result]))).toEqual({
      "calc::lib::canary::fails": "failed", "calc::lib::tests::shows": "passed",
      "calc::calc::adds": "errored", "calc::calc::canary::fails": "failed", "calc::calc::muls": "errored",
    });
    expect(report.cases.find((c) => c.id === "calc::calc::muls")?.message).toContain("exited 0 although it reported failed tests");
    // The reader's own proof that the output lies: the run is not believed (tests.regression, unsafe).
    expect(report.contradictions).toEqual(["a test binary (calc::calc) printed failed tests but exited 0: cargo did not see it fail"]);
  });

  it("an honest run: every binary with failures is one cargo saw fail, and nothing changes", () => {
    const dir = tree();
    const text = [...LIB, "error: test failed, to rerun pass `--lib`", ...CALC, "error: test failed, to rerun pass `--test calc`"].join("\n");
    const report = parseCargo(text, treeResolver(dir), dir);
    expect(report.cases.filter((c) => c.result === "errored")).toEqual([]);
    expect(report.notes).toEqual([]);
    expect(report.contradictions).toBeUndefined();
  });
});

describe("trybuild's cases (bitflags' tests/compile.rs, issue 22)", () => {
  it("reads a case that does not build as it should as a failed test of its target, not as no test", () => {
    const dir = tree();
    const text = [
      "     Running tests/calc.rs (target/debug/deps/calc-22e5dbad83567ceb)", "", "running 2 tests",
      "test tests/compile-pass/multi.rs ... error", "EXPECTED: pass", "error: recursion limit reached while expanding `bitflags!`",
      "test tests/compile-pass/shadow.rs [should pass] ... ok",
      "test tests/compile-fail/vis.rs [should fail to compile] ... mismatch",
      "test pass ... FAILED", "test canary::fails ... FAILED", "", "failures:", "", "---- pass stdout ----",
      "thread 'pass' panicked at tests/calc.rs:4:7:", "2 of 3 tests failed", "", "test result: FAILED. 0 passed; 2 failed", "",
      "error: test failed, to rerun pass `--test calc`",
    ].join("\n");
    const report = parseCargo(text, treeResolver(dir), dir);
    expect(report.cases.map((c) => [c.id, c.result, c.file, c.message])).toEqual([
      ["calc::calc::tests/compile-pass/multi.rs", "failed", "tests/calc.rs", "trybuild: error"],
      ["calc::calc::tests/compile-pass/shadow.rs", "passed", "tests/calc.rs", undefined],
      ["calc::calc::tests/compile-fail/vis.rs", "failed", "tests/calc.rs", "trybuild: mismatch"],
      ["calc::calc::pass", "failed", "tests/calc.rs", "2 of 3 tests failed"],
      ["calc::calc::canary::fails", "failed", "tests/calc.rs", undefined],
    ]);
  });
});
