import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJunit } from "../../src/measure/junit.js";
import { treeResolver } from "../../src/measure/junit-read.js";
import { REPORTERS_DIR } from "../../src/measure/reporters.js";
import { canSelect, selectionFor, selectionList } from "../../src/measure/select.js";

// Running only some tests (tests.stable's repeats, diff.needed's mutants): which runners the gate
// can select itself, and the gate's jest launcher doing it for real.
describe("which runners the gate selects", () => {
  it("pytest through its plugin, jest through its launcher, anything else only through tests.select", () => {
    expect(selectionFor({ command: 'node "$RANEX_REPORTERS/jest-run.cjs"' }, ["a::b"], "/l", "bwrap")?.how).toBe("jest launcher");
    expect(selectionFor({ command: "node $RANEX_REPORTERS/jest-run.cjs --maxWorkers=2" }, ["a::b"], "/l", "bwrap")?.how).toBe("jest launcher");
    expect(selectionFor({ command: 'python3 -m pytest --junitxml="$RANEX_JUNIT"' }, ["a::b"], "/l", "bwrap")?.how).toBe("pytest plugin");
    expect(canSelect({ command: 'node --test --test-reporter="$RANEX_NODE_REPORTER"' })).toBe(false);
    expect(canSelect({ command: "npx jest" })).toBe(false);
    expect(canSelect({ command: "npx jest", select: "npx jest -t \"$RANEX_SELECT_PATTERN\"" })).toBe(true);
  });
});

describe("the gate's jest launcher with a selection", () => {
  it("runs only the listed files, and in them only the tests whose full name is listed (a title holding `::`, a test.each title, a nested describe)", () => {
    const dir = mkdtempSync(join(tmpdir(), "ranex-jest-select-"));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    write("package.json", '{"name":"select","private":true}');
    write("test/lib.test.js", [
      'test("adds", () => expect(1 + 2).toBe(3));',
      'describe("Calc", () => {',
      '  describe("inner", () => { test("Foo::bar (x)", () => expect(1).toBe(1)); });',
      '  test.each([[1, 2], [2, 3]])("inc %i", (a, b) => expect(a + 1).toBe(b));',
      "});",
    ].join("\n"));
    write("test/other.test.js", 'test("adds", () => expect(1).toBe(1));\n');
    symlinkSync(join(import.meta.dirname, "..", "..", "node_modules"), join(dir, "node_modules"));
    write("select.txt", selectionList(["test/lib.test.js::Calc inner Foo::bar (x)", "test/lib.test.js::Calc inc 2"]));
    execFileSync(process.execPath, [join(REPORTERS_DIR, "jest-run.cjs")], {
      cwd: dir, stdio: "ignore", env: { ...process.env, RANEX_JUNIT: join(dir, "junit.xml"), RANEX_SELECT_FILE: join(dir, "select.txt") },
    });
    const report = parseJunit(readFileSync(join(dir, "junit.xml"), "utf8"), treeResolver(dir));
    expect(Object.fromEntries(report.cases.map((c) => [c.id, c.result]))).toEqual({
      "test/lib.test.js::adds": "skipped",
      "test/lib.test.js::Calc inner Foo::bar (x)": "passed",
      "test/lib.test.js::Calc inc 1": "skipped",
      "test/lib.test.js::Calc inc 2": "passed",
    });
  }, 60_000);
});
