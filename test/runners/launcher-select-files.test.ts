import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJunit } from "../../src/measure/junit.js";
import { treeResolver } from "../../src/measure/junit-read.js";
import { REPORTERS_DIR } from "../../src/measure/reporters.js";
import type { SuiteRun } from "../../src/measure/report-types.js";
import { filesUnproven } from "../../src/measure/select.js";
import { launcherFiles } from "../../src/runners/js-select-files.js";
import { tempDir } from "../helpers/git-repo.js";

// The gate's jest and vitest launchers asked for the PR's new test files (RANEX_SELECT_BY=file),
// with this project's real jest and vitest, outside the sandbox (test/judge/own-runs-selected-js.test.ts
// judges them in it): exactly the listed files run, and a command that names test paths of its own,
// which the files would only add to, is refused, which the gate reads as a selection that did not
// take effect.
function tree(files: Record<string, string>): string {
  const dir = tempDir("ranex-launcher-files-");
  for (const [path, text] of Object.entries({ "package.json": '{"name":"c","private":true}\n', ...files })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  symlinkSync(join(import.meta.dirname, "..", "..", "node_modules"), join(dir, "node_modules"));
  return dir;
}

function launch(dir: string, script: string, args: string[], files: string[]) {
  const list = join(dir, ".list");
  writeFileSync(list, files.map((f) => `${f}\n`).join(""));
  const junit = join(dir, "junit.xml");
  const run = spawnSync(process.execPath, [join(REPORTERS_DIR, script), ...args], {
    cwd: dir, encoding: "utf8", env: { ...process.env, RANEX_JUNIT: junit, RANEX_SELECT_FILE: list, RANEX_SELECT_BY: "file" },
  });
  const report = existsSync(junit) ? parseJunit(readFileSync(junit, "utf8"), treeResolver(dir)) : null;
  return { status: run.status, report, list };
}

const ran = (run: ReturnType<typeof launch>): string[] => (run.report?.cases ?? []).map((c) => `${c.file}::${c.name}`).sort();

/** What filesUnproven says of a launcher's run (the command's result aside: only the report and the refusal matter). */
const unproven = (run: ReturnType<typeof launch>, files: string[], how: string) => filesUnproven(launcherFiles("", {}, how), files, run.list, {
  label: "head+new", setup: null, command: { exitCode: run.status } as SuiteRun["command"], report: run.report, reportError: run.report === null ? "no report" : null,
});

const JEST = (title: string) => `test(${JSON.stringify(title)}, () => expect(1).toBe(1));\n`;

describe("jest's launcher, by file", () => {
  it("runs exactly the listed files: anchored and escaped, jest's own configuration still deciding what is a test file", async () => {
    const dir = tree({ "test/a.test.js": JEST("a"), "test/a.test.jsx": JEST("a jsx"), "other/test/a.test.js": JEST("other a"), "test/b.test.js": JEST("b") });
    const run = launch(dir, "jest-run.cjs", [], ["test/a.test.js"]);
    expect(ran(run)).toEqual(["test/a.test.js::a"]);
    expect(await unproven(run, ["test/a.test.js"], "jest")).toBeNull();
    // A listed file jest's configuration does not take as a test file does not run, and proves nothing.
    const helper = launch(dir, "jest-run.cjs", [], ["test/a.test.js", "test/helpers.js"]);
    expect(await unproven(helper, ["test/a.test.js", "test/helpers.js"], "jest")).toBe("the run of the selection (jest) reported nothing of test/helpers.js");
  }, 120_000);

  it("refuses a command that names test paths of its own, and runs nothing", async () => {
    const dir = tree({ "test/a.test.js": JEST("a"), "test/b.test.js": JEST("b") });
    const run = launch(dir, "jest-run.cjs", ["test/b"], ["test/a.test.js"]);
    expect([run.status, run.report]).toEqual([3, null]);
    expect(await unproven(run, ["test/a.test.js"], "jest")).toBe("the launcher refused: the jest command chooses its own test files (test/b): the PR's new files would add to them");
  }, 120_000);
});

describe("vitest's launcher, by file", () => {
  const VITEST = ["run", "--globals", "--reporter=junit", "--outputFile=junit.xml", "--passWithNoTests"];
  it("runs the listed files as filters, within what the configuration includes", async () => {
    const dir = tree({ "test/a.test.js": JEST("a"), "test/b.test.js": JEST("b"), "src/a.test.js.txt": "" });
    const run = launch(dir, "vitest-run.cjs", VITEST, ["test/a.test.js"]);
    expect(ran(run)).toEqual(["test/a.test.js::a"]);
    expect(await unproven(run, ["test/a.test.js"], "vitest")).toBeNull();
  }, 120_000);

  it("refuses a command with filters of its own", async () => {
    const dir = tree({ "test/a.test.js": JEST("a"), "test/b.test.js": JEST("b") });
    const run = launch(dir, "vitest-run.cjs", [...VITEST, "b.test"], ["test/a.test.js"]);
    expect([run.status, run.report]).toEqual([3, null]);
    expect(await unproven(run, ["test/a.test.js"], "vitest")).toBe("the launcher refused: the vitest command names filters of its own (b.test): the PR's new files would add to them");
  }, 120_000);
});
