import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJunit } from "../../src/measure/junit.js";
import { treeResolver } from "../../src/measure/junit-read.js";
import { REPORTERS_DIR } from "../../src/measure/reporters.js";
import type { SuiteRun } from "../../src/measure/report-types.js";
import { canSelect, selectionFor, selectionList, selectionUnproven } from "../../src/measure/select.js";

// Running only some tests (tests.stable's repeats, diff.needed's mutants): which runners the gate
// can select itself, and the gate's jest launcher doing it for real.
describe("which runners the gate selects", () => {
  it("pytest through its plugin, jest and vitest through their launchers, anything else only through tests.select", () => {
    const vitest = 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT"';
    expect(selectionFor({ command: vitest }, ["a::b"], "/l", "bwrap")?.how).toBe("vitest launcher");
    expect(selectionFor({ command: `npm run pretest && ${vitest}` }, ["a::b"], "/l", "bwrap")?.how).toBe("vitest launcher");
    expect(canSelect({ command: 'npx vitest run --reporter=junit --outputFile="$RANEX_JUNIT"' })).toBe(false);
    expect(selectionFor({ command: 'node "$RANEX_REPORTERS/jest-run.cjs"' }, ["a::b"], "/l", "bwrap")?.how).toBe("jest launcher");
    expect(selectionFor({ command: "node $RANEX_REPORTERS/jest-run.cjs --maxWorkers=2" }, ["a::b"], "/l", "bwrap")?.how).toBe("jest launcher");
    expect(selectionFor({ command: 'python3 -m pytest --junitxml="$RANEX_JUNIT"' }, ["a::b"], "/l", "bwrap")?.how).toBe("pytest plugin");
    expect(canSelect({ command: 'node --test --test-reporter="$RANEX_NODE_REPORTER"' })).toBe(false);
    expect(canSelect({ command: "npx jest" })).toBe(false);
    expect(canSelect({ command: "npx jest", select: "npx jest -t \"$RANEX_SELECT_PATTERN\"" })).toBe(true);
  });
});

/** A scratch package of `files` with this checkout's node_modules, for a launcher to run in. */
function launcherDir(prefix: string, files: Record<string, string>): { dir: string; write: (path: string, text: string) => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  symlinkSync(join(import.meta.dirname, "..", "..", "node_modules"), join(dir, "node_modules"));
  return { dir, write };
}

/** Runs a gate launcher on `ids` as a repeat does; the outcomes by id and what selectionUnproven says of the run. */
async function selectedRun(at: ReturnType<typeof launcherDir>, command: string, script: string, ids: string[], args: string[] = []) {
  const list = join(at.dir, "select.txt");
  at.write("select.txt", selectionList(ids));
  const junit = join(at.dir, "junit.xml");
  const selection = selectionFor({ command }, ids, list, "none")!;
  execFileSync(process.execPath, [join(REPORTERS_DIR, script), ...args], { cwd: at.dir, stdio: "ignore", env: { ...process.env, RANEX_JUNIT: junit, ...selection.env } });
  const report = parseJunit(readFileSync(junit, "utf8"), treeResolver(at.dir));
  const run = { label: "head", setup: null, command: { exitCode: 0 } as SuiteRun["command"], report, reportError: null } as SuiteRun;
  return { outcomes: Object.fromEntries(report.cases.map((c) => [c.id, c.result])), unproven: await selectionUnproven(selection, ids, list, run) };
}

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

describe("the gate's jest launcher: a selection that did not take effect is never an outcome", () => {
  // jest's full name joins the titles as they are; the report's ids are trimmed (an empty describe
  // title leaves a leading space, a title may end in one).
  const at = launcherDir("ranex-jest-proof-", {
    "package.json": '{"name":"select","private":true}',
    "test/lib.test.js": [
      'describe("", () => { test("in an empty describe", () => expect(1).toBe(1)); });',
      'test("ends in a space ", () => expect(1).toBe(1));',
      'test("plain", () => expect(1).toBe(1));',
      'test.skip("later", () => expect(1).toBe(2));',
    ].join("\n"),
  });
  const selected = (ids: string[]) => selectedRun(at, 'node "$RANEX_REPORTERS/jest-run.cjs"', "jest-run.cjs", ids);

  it("runs a listed test whose full name has a space the report's id lost (an empty describe title, a title ending in a space)", async () => {
    const { outcomes, unproven } = await selected(["test/lib.test.js::in an empty describe", "test/lib.test.js::ends in a space"]);
    expect(outcomes).toEqual({
      "test/lib.test.js::in an empty describe": "passed",
      "test/lib.test.js::ends in a space": "passed",
      "test/lib.test.js::plain": "skipped",
      "test/lib.test.js::later": "skipped",
    });
    expect(unproven).toBeNull();
  }, 60_000);

  it("a listed test reported skipped did not run: the selection is not read as its outcome", async () => {
    const { outcomes, unproven } = await selected(["test/lib.test.js::plain", "test/lib.test.js::later"]);
    expect(outcomes["test/lib.test.js::plain"]).toBe("passed");
    expect(outcomes["test/lib.test.js::later"]).toBe("skipped");
    expect(unproven).toBe("the run of the selection (jest launcher) skipped test/lib.test.js::later");
  }, 60_000);
});

describe("the gate's vitest launcher with a selection", () => {
  const at = launcherDir("ranex-vitest-select-", {
    "package.json": '{"name":"select","private":true,"type":"module"}',
    "test/lib.test.js": [
      'import { describe, expect, test } from "vitest";',
      'test("adds", () => expect(1 + 2).toBe(3));',
      'describe("Calc", () => {',
      '  describe("inner", () => { test("Foo::bar (x) > y", () => expect(1).toBe(1)); });',
      '  test.each([[1, 2], [2, 3]])("inc %i", (a, b) => expect(a + 1).toBe(b));',
      "});",
      'test.skip("later", () => expect(1).toBe(2));',
    ].join("\n"),
    "test/other.test.js": 'import { expect, test } from "vitest";\ntest("adds", () => expect(1).toBe(1));\n',
    "test/third.test.js": 'import { expect, test } from "vitest";\ntest("inc 2", () => expect(1).toBe(1));\n',
  });
  const command = 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT"';
  const selected = (ids: string[], args: string[] = []) =>
    selectedRun(at, command, "vitest-run.cjs", ids, ["run", "--reporter=junit", `--outputFile=${join(at.dir, "junit.xml")}`, ...args]);

  it("runs only the listed files, and in them the listed tests (vitest's `>` nesting, a title holding `::` and `>`, a test.each title); the run proves it", async () => {
    const { outcomes, unproven } = await selected(["test/lib.test.js::Calc > inner > Foo::bar (x) > y", "test/lib.test.js::Calc > inc 2", "test/other.test.js::adds"]);
    // vitest reports a test its name pattern leaves out as skipped; a file not listed does not run.
    // Names and files are two filters: `adds` of other.test.js runs lib.test.js's `adds` too (more, never fewer).
    expect(outcomes).toEqual({
      "test/lib.test.js::adds": "passed",
      "test/lib.test.js::Calc > inner > Foo::bar (x) > y": "passed",
      "test/lib.test.js::Calc > inc 1": "skipped",
      "test/lib.test.js::Calc > inc 2": "passed",
      "test/lib.test.js::later": "skipped",
      "test/other.test.js::adds": "passed",
    });
    expect(unproven).toBeNull();
  }, 120_000);

  it("replaces the command's own filters with the listed files (every listed test came from a run of this command)", async () => {
    const { outcomes, unproven } = await selected(["test/other.test.js::adds"], ["test/lib"]);
    expect(outcomes).toEqual({ "test/other.test.js::adds": "passed" });
    expect(unproven).toBeNull();
  }, 120_000);

  it("a listed test reported skipped did not run: the selection is not read as its outcome", async () => {
    const { outcomes, unproven } = await selected(["test/lib.test.js::later"]);
    expect(outcomes["test/lib.test.js::later"]).toBe("skipped");
    expect(unproven).toBe("the run of the selection (vitest launcher) skipped test/lib.test.js::later");
  }, 120_000);
});
