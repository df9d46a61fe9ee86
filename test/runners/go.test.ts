import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readJunitReport } from "../../src/measure/junit-read.js";
import { checksum } from "../../src/measure/canary.js";
import type { TestReport } from "../../src/measure/report-types.js";
import { detectTestRunner } from "../../src/policy/detect.js";
import { testCommand } from "../../src/policy/init.js";
import { go, GO_TEST_COMMAND } from "../../src/runners/go.js";
import { tempDir } from "../helpers/git-repo.js";

// The Go runner on real `go test -json` output (the host's go, its own build cache: no sandbox, so
// no cold build of the standard library): ids, files, build failures and panics as load errors, the
// canary file, and the selection command.
const GO = "/usr/local/go/bin/go";

function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const MODULE = {
  "go.mod": "module example.com/m\n\ngo 1.22\n",
  "calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
  "calc_test.go": [
    "package calc", "", 'import "testing"', "",
    'func TestAdd(t *testing.T) { if Add(2, 3) != 5 { t.Fatal("bad") } }',
    "func TestTable(t *testing.T) {",
    '\tfor _, n := range []string{"one", "two words"} {',
    '\t\tt.Run(n, func(t *testing.T) { if n == "one" { t.Fatal("one is wrong") } })',
    "\t}",
    "}", "",
  ].join("\n"),
  "more_test.go": 'package calc\n\nimport "testing"\n\nfunc TestSkip(t *testing.T) { t.Skip("later") }\n',
  "broken/b.go": 'package broken\n\nfunc X() int { return "s" }\n',
  "broken/b_test.go": 'package broken\n\nimport "testing"\n\nfunc TestX(t *testing.T) { X() }\n',
  "panicky/p_test.go": 'package panicky\n\nimport "testing"\n\nfunc TestA(t *testing.T) {}\n\nfunc TestB(t *testing.T) { panic("boom") }\n\nfunc TestC(t *testing.T) {}\n',
};

async function goReport(dir: string, args: string[] = ["./..."]): Promise<TestReport> {
  const report = join(dir, "report.json");
  try {
    execFileSync(GO, ["test", "-json", ...args], { cwd: dir, stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, GOFLAGS: "", GOPROXY: "off" } });
  } catch (error) {
    writeFileSync(report, (error as { stdout: Buffer }).stdout);
    const read = await readJunitReport(report, dir, GO_TEST_COMMAND);
    if ("error" in read) throw new Error(read.error);
    return read.report;
  }
  throw new Error("go test passed, but this module has failing tests");
}

describe("go test -json", () => {
  let dir: string;
  let report: TestReport;
  beforeAll(async () => {
    dir = tempDir("ranex-go-");
    write(dir, MODULE);
    report = await goReport(dir);
  }, 300_000);

  it("names tests <package>/<Test>/<subtest> and finds the _test.go file that declares each", () => {
    const byId = Object.fromEntries(report.cases.map((c) => [c.id, [c.result, c.file]]));
    expect(byId).toMatchObject({
      "example.com/m/TestAdd": ["passed", "calc_test.go"],
      "example.com/m/TestTable": ["failed", "calc_test.go"],
      "example.com/m/TestTable/one": ["failed", "calc_test.go"],
      "example.com/m/TestTable/two_words": ["passed", "calc_test.go"],
      "example.com/m/TestSkip": ["skipped", "more_test.go"],
      "example.com/m/panicky/TestA": ["passed", "panicky/p_test.go"],
      "example.com/m/panicky/TestB": ["failed", "panicky/p_test.go"],
    });
    expect(report.cases.find((c) => c.id === "example.com/m/TestTable/one")?.message).toBe("calc_test.go:8: one is wrong");
  });

  it("reads a package that does not build, and a test binary killed by a panic, as load errors with their reason", () => {
    expect(report.loadErrors).toEqual(["broken/b_test.go", "panicky/p_test.go"]);
    expect(report.loadErrorMessages).toEqual([
      { file: "broken/b_test.go", message: expect.stringContaining("cannot use \"s\"") as unknown as string },
      { file: "panicky/p_test.go", message: expect.stringContaining("panic: boom") as unknown as string },
    ]);
    // What the panic kept from running is not there: it is no pass.
    expect(report.cases.map((c) => c.id)).not.toContain("example.com/m/panicky/TestC");
  });

  // spf13/cast: the fix's test of basic_test.go panicked on the base and ended the binary, so a
  // target of time_test.go never ran there. It was absent (not red), and `task check` refused it.
  it("reads the files whose tests a panic kept from running as failed to load, naming the test that panicked; a file whose tests all ran keeps its outcomes", async () => {
    const panicDir = tempDir("ranex-go-panic-");
    write(panicDir, {
      "go.mod": "module example.com/p\n\ngo 1.22\n",
      "a_test.go": 'package p\n\nimport "testing"\n\nfunc TestFirst(t *testing.T) {}\n',
      "basic_test.go": 'package p\n\nimport "testing"\n\nfunc TestString(t *testing.T) { var s *string; _ = *s }\n\nfunc TestAfter(t *testing.T) {}\n',
      "time_test.go": 'package p\n\nimport "testing"\n\nfunc TestTime(t *testing.T) {}\n\nfunc helper(t *testing.T) {}\n',
      // A fatal error (cast's was a stack overflow) ends the binary with the test unfinished, no panic.
      "deep/a_test.go": 'package deep\n\nimport "testing"\n\nfunc TestDeep(t *testing.T) {\n\tt.Run("down", func(t *testing.T) {\n\t\tvar f func(int) int\n\t\tf = func(n int) int { return f(n+1) + 1 }\n\t\tf(0)\n\t})\n}\n',
      "deep/b_test.go": 'package deep\n\nimport "testing"\n\nfunc TestLater(t *testing.T) {}\n',
    });
    const panicked = await goReport(panicDir);
    expect(Object.fromEntries(panicked.cases.map((c) => [c.id, c.result]))).toEqual({
      "example.com/p/TestFirst": "passed", "example.com/p/TestString": "failed", "example.com/p/deep/TestDeep": "errored", "example.com/p/deep/TestDeep/down": "errored",
    });
    // The test that met the fatal error is errored ("did not finish"); the tests after it failed to load.
    expect(panicked.loadErrors).toEqual(["basic_test.go", "deep/b_test.go", "time_test.go"]);
    expect(panicked.loadErrorMessages).toEqual([
      { file: "basic_test.go", message: expect.stringContaining("panic: runtime error: invalid memory address or nil pointer dereference") as unknown as string },
      { file: "deep/b_test.go", message: "did not run: the package's test binary ended first, in TestDeep (fatal error: stack overflow)" },
      { file: "time_test.go", message: expect.stringMatching(/^did not run: the package's test binary ended first, in TestString \(panic: runtime error/) as unknown as string },
    ]);
  });

  it("tells `ranex task check` the file of a test the base run did not report, from the base's files", async () => {
    const files: Record<string, string> = {
      "go.mod": "module example.com/p\n\ngo 1.22\n",
      "basic_test.go": 'package p\n\nfunc TestString(t *testing.T) {}\n',
      "time_test.go": 'package p\n\nfunc TestTime(t *testing.T) {}\n',
      "sub/x_test.go": 'package sub\n\nfunc TestTime(t *testing.T) {}\n',
    };
    const base = { files: new Set(Object.keys(files)), read: (path: string) => Promise.resolve(files[path] ?? null) };
    expect(await go.fileOfId?.("example.com/p/TestTime", base)).toBe("time_test.go");
    expect(await go.fileOfId?.("example.com/p/TestTime/#01", base)).toBe("time_test.go");
    expect(await go.fileOfId?.("example.com/p/sub/TestTime", base)).toBe("sub/x_test.go");
    expect(await go.fileOfId?.("example.com/p/TestGone", base)).toBeNull();
    expect(await go.fileOfId?.("other.org/q/TestTime", base)).toBeNull();
  });

  it("gives the canary to a package folder, with that folder's package clause; it fails in a real run", async () => {
    const tree = tempDir("ranex-go-canary-");
    write(tree, { "go.mod": MODULE["go.mod"], "calc.go": MODULE["calc.go"], "calc_test.go": MODULE["calc_test.go"] });
    const values = { word: "parsesemptyheader", right: 7, wrong: 8 };
    const placed = await go.canary({ command: GO_TEST_COMMAND, treeDir: tree, hostDir: tree, seenAs: tree, values });
    if ("note" in placed) throw new Error(placed.note);
    const [file] = placed.treeFiles ?? [];
    expect(file).toMatch(/^[a-z]+_[a-z]+_test\.go$/);
    expect(readFileSync(join(tree, file ?? ""), "utf8")).toMatch(/^package calc$/m);
    expect(placed.members.map((m) => m.expect)).toEqual(["fail", "fail", "pass"]);
    const run = await goReport(tree);
    // The checksum of the word is not 8: the must-fail ones fail and the must-pass one (asserting 7) does too.
    for (const member of placed.members) expect(run.cases.find((c) => c.name === member.name)).toMatchObject({ id: `example.com/m/${member.name}`, result: "failed" });
    expect(await go.canary({ command: GO_TEST_COMMAND, treeDir: tempDir("ranex-go-empty-"), hostDir: "", seenAs: "", values }))
      .toEqual({ note: expect.stringContaining("no package folder") as unknown as string });
  });

  it("gives a canary to every package folder with tests, each with its own names, clause and binary (issue 19)", async () => {
    const tree = tempDir("ranex-go-canaries-");
    write(tree, {
      "go.mod": MODULE["go.mod"], "calc.go": MODULE["calc.go"], "calc_test.go": MODULE["calc_test.go"],
      // Only an external test package here, and a file behind a build constraint that sorts first.
      "shapes/shapes.go": "package shapes\n\nfunc Area(w, h int) int { return w * h }\n",
      "shapes/a_test.go": '//go:build integration\n\npackage shapes_test\n\nimport "testing"\n\nfunc TestSlow(t *testing.T) {}\n',
      "shapes/shapes_test.go": 'package shapes_test\n\nimport (\n\t"testing"\n\n\t"example.com/m/shapes"\n)\n\nfunc TestArea(t *testing.T) { if shapes.Area(2, 3) != 6 { t.Fatal("bad") } }\n',
      "shapes/testdata/x_test.go": "package nothing\n",
    });
    const values = { word: "parsesemptyheader", right: checksum("parsesemptyheader"), wrong: checksum("parsesemptyheader") + 5 };
    const placed = await go.canary({ command: GO_TEST_COMMAND, treeDir: tree, hostDir: tree, seenAs: tree, values });
    if ("note" in placed) throw new Error(placed.note);
    const files = placed.treeFiles ?? [];
    expect(files.map((f) => f.includes("/") ? f.slice(0, f.lastIndexOf("/")) : "")).toEqual(["", "shapes"]);
    expect(readFileSync(join(tree, files[1] ?? ""), "utf8")).toMatch(/^package shapes_test$/m);
    expect(new Set(placed.members.map((m) => m.name)).size).toBe(6);
    expect(placed.members.map((m) => [m.inBinary?.label, m.expect])).toEqual([
      ["example.com/m", "fail"], ["example.com/m", "fail"], ["example.com/m", "pass"],
      ["example.com/m/shapes", "fail"], ["example.com/m/shapes", "fail"], ["example.com/m/shapes", "pass"],
    ]);
    // A real run: every canary in its package's binary, as it must be; the root's ids do not take in the sub-package's tests.
    const run = await goReport(tree);
    for (const member of placed.members) {
      const pkg = member.inBinary?.label ?? "";
      expect(run.cases.find((c) => c.name === member.name), member.name).toMatchObject({ id: `${pkg}/${member.name}`, result: member.expect === "fail" ? "failed" : "passed" });
    }
    const rootIds = new RegExp(placed.members[0]?.inBinary?.ids ?? "");
    expect(rootIds.test("example.com/m/TestAdd")).toBe(true);
    expect(rootIds.test("example.com/m/shapes/TestArea")).toBe(false);
  });

  it("selects top-level tests per package with -run, and the selected run reports only them", async () => {
    const selection = go.select({
      command: GO_TEST_COMMAND, ids: ["example.com/m/TestAdd", "example.com/m/panicky/TestA", "example.com/m/TestTable/two_words"], listFile: "/l", backend: "bwrap", common: {},
    });
    expect(selection?.command).toContain("go test -run '^(TestA|TestAdd|TestTable)$' -count=1 -json example.com/m example.com/m/panicky > \"$RANEX_REPORT\"");
    expect(go.runs(selection?.command ?? "")).toBe(true);
    const selected = await goReport(dir, ["-run", "^(TestA|TestAdd|TestTable)$", "example.com/m", "example.com/m/panicky"]);
    expect(selected.cases.map((c) => c.id).sort()).toEqual([
      "example.com/m/TestAdd", "example.com/m/TestTable", "example.com/m/TestTable/one", "example.com/m/TestTable/two_words", "example.com/m/panicky/TestA",
    ]);
    expect(go.select({ command: "go test -json ./pkg > \"$RANEX_REPORT\"", ids: ["a/TestX"], listFile: "", backend: "bwrap", common: {} })).toBeNull();
    expect(go.select({ command: GO_TEST_COMMAND, ids: ["a b/TestX"], listFile: "", backend: "bwrap", common: {} })).toBeNull();
  });

  it("detects a module for init: the toolchain's folder, a setup that fills the caches, an offline command", async () => {
    const found = await detectTestRunner(dir);
    expect(found).toMatchObject({ kind: "go", evidence: "go.mod", toolchain: ["/usr/local/go/bin"] });
    expect(found.install).toContain("go mod download");
    expect(testCommand(found)?.command).toBe(GO_TEST_COMMAND);
    expect(GO_TEST_COMMAND).toMatch(/GOPROXY=off .*GOFLAGS=-mod=readonly|GOFLAGS=-mod=readonly .*GOPROXY=off/);
    // The build cache is the tree's warm layer, kept between a tree's runs: -count=1, or a repeat
    // would read the head run's cached results instead of running the tests again.
    expect(GO_TEST_COMMAND).toContain('GOCACHE="$PWD/.ranex-warm/go-build"');
    expect(GO_TEST_COMMAND).toMatch(/go test -count=1 /);
  });
});
