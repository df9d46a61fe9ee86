import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Detail } from "../../src/kernel/types.js";
import { placeCanary, placeFileCanary, stripCanary } from "../../src/measure/canary.js";
import { parseJunit } from "../../src/measure/junit.js";
import { treeResolver } from "../../src/measure/junit-read.js";
import { REPORTERS_DIR } from "../../src/measure/reporters.js";
import { canaryFindings, FORGED_RESULTS } from "../../src/measure/tests/canary-findings.js";
import type { SuiteRun } from "../../src/measure/report-types.js";

// jest's canaries inside every test file (src/runners/canary-in-file.ts), through the gate's real launcher
// and this project's real jest, outside the sandbox: where they run, what they see, how they are read.
const LAUNCHED = 'node "$RANEX_REPORTERS/jest-run.cjs"';

function repository(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "ranex-jest-canary-"));
  for (const [path, text] of Object.entries({ "package.json": '{"name":"c","private":true}\n', ...files })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  symlinkSync(join(import.meta.dirname, "..", "..", "node_modules"), join(dir, "node_modules"));
  return dir;
}

function run(dir: string, env: Record<string, string>): ReturnType<typeof parseJunit> {
  try {
    execFileSync(process.execPath, [join(REPORTERS_DIR, "jest-run.cjs")], { cwd: dir, stdio: "pipe", env: { ...process.env, ...env, RANEX_JUNIT: join(dir, "junit.xml") } });
  } catch {
    // The canaries that must fail make jest exit 1.
  }
  return parseJunit(readFileSync(join(dir, "junit.xml"), "utf8"), treeResolver(dir));
}

describe("jest's canaries inside every test file", () => {
  it("run in every file after its own tests, keep the configuration's setup files, and catch expect neutered inside a test", async () => {
    const dir = repository({
      "jest.config.js": 'module.exports = { setupFilesAfterEnv: ["<rootDir>/test/setup.js"] };\n',
      "test/setup.js": "globalThis.ownSetupRan = true;\n",
      // The configuration's own setup file still runs; the gate's variable never reaches a test.
      "test/own.test.js": [
        'test("keeps the own setup", () => expect(globalThis.ownSetupRan).toBe(true));',
        'test("sees no gate variable", () => expect(Object.keys(process.env).filter((k) => k.startsWith("RANEX_JEST"))).toEqual([]));',
      ].join("\n"),
      // A focused test: the canaries still run beside it.
      "test/focus.test.js": 'test.only("focused", () => expect(1).toBe(1));\ntest("left out", () => expect(1).toBe(2));\n',
      // Neutered inside the file's last test: only canaries that run after it can see it.
      "test/late.test.js": [
        'test("first", () => expect([1]).toEqual([1]));',
        'describe("group", () => { test("neuters", () => { expect.extend({ ["to" + "Equal"]: () => ({ pass: true, message: () => "" }) }); expect(1).toEqual(2); }); });',
      ].join("\n"),
    });
    const gate = join(dir, ".gate");
    const placed = await placeCanary(LAUNCHED, dir, gate, gate);
    expect(placed.treeFiles).toEqual([]);
    expect(placed.members.map((m) => [m.via, m.expect, m.inEachFile])).toEqual([
      ["jest expect().toBe in every test file", "fail", true], ["jest expect().toEqual in every test file", "fail", true],
      ["jest expect().toThrow in every test file", "fail", true], ["jest expect().toBe in every test file", "pass", true],
      ["jest's test registration in every frozen test file, and the values every test file compares", "pass", true],
      ["the intrinsics (Object.is, Array.prototype, JSON, ...) in every jest test file's context", "pass", true],
    ]);
    // A fresh name: nothing fixed on disk beside the gate's folder.
    expect(readdirSync(gate)).toEqual([expect.stringMatching(/^[0-9a-f]{12}\.cjs$/)]);

    const { report, outcome } = stripCanary(run(dir, placed.env), placed);
    expect(Object.fromEntries(report.cases.map((c) => [c.id, c.result]))).toEqual({
      "test/own.test.js::keeps the own setup": "passed",
      "test/own.test.js::sees no gate variable": "passed",
      "test/focus.test.js::focused": "passed",
      "test/focus.test.js::left out": "skipped",
      "test/late.test.js::first": "passed",
      "test/late.test.js::group neuters": "passed",
    });
    const toEqual = outcome.members?.find((m) => m.via.includes("toEqual"));
    expect(toEqual?.inEachFile).toEqual({ files: 3, wrong: [{ file: "test/late.test.js", result: "passed" }], wrongCount: 1 });
    for (const m of outcome.members ?? []) if (m !== toEqual) expect(m.inEachFile).toEqual({ files: 3, wrong: [], wrongCount: 0 });

    const details: Detail[] = [];
    const run4 = { label: "head+new", canary: outcome, report } as unknown as SuiteRun;
    const reason = canaryFindings(run4, details);
    expect(reason).toContain(FORGED_RESULTS);
    expect(reason).toContain(`${toEqual?.name ?? ""} (fails through jest expect().toEqual in every test file) came back wrong in test/late.test.js (passed)`);
    expect(details).toContainEqual(expect.objectContaining({ kind: "canary", path: "test/late.test.js" }));
  }, 120_000);

  it("are given to the runs without a canary of their own only through the launcher; a plain jest command gets a canary test file", async () => {
    const dir = repository({ "test/a.test.js": 'test("a", () => expect(1).toBe(1));\n' });
    const gate = join(dir, ".gate");
    expect(await placeFileCanary("npx jest --ci --reporters=jest-junit", dir, gate, gate)).toBeNull();
    expect(await placeFileCanary("python3 -m pytest", dir, gate, gate)).toBeNull();
    const file = await placeFileCanary(LAUNCHED, dir, gate, gate);
    expect(file?.members.every((m) => m.inEachFile === true)).toBe(true);
    const plain = await placeCanary("npx jest --ci --reporters=jest-junit", dir, join(dir, ".gate2"), "/opt/ranex/run");
    expect(plain.treeFiles).toEqual([expect.stringMatching(/^test\/[a-z]+-[a-z]+s\.test\.js$/)]);
    expect(plain.members.some((m) => m.inEachFile === true)).toBe(false);
  });

  it("a configured bail is turned off: every file fails its must-fail canaries, and every file still runs", async () => {
    const dir = repository({
      "jest.config.js": "module.exports = { bail: 1, maxWorkers: 1 };\n",
      "test/a.test.js": 'test("a", () => expect(1).toBe(1));\n',
      "test/b.test.js": 'test("b", () => expect(1).toBe(1));\n',
    });
    const gate = join(dir, ".gate");
    const placed = await placeCanary(LAUNCHED, dir, gate, gate);
    const { report, outcome } = stripCanary(run(dir, placed.env), placed);
    expect(report.cases.map((c) => c.id).sort()).toEqual(["test/a.test.js::a", "test/b.test.js::b"]);
    expect(outcome.members?.map((m) => m.inEachFile?.files)).toEqual([2, 2, 2, 2, 2, 2]);
  }, 60_000);

  it("a launcher that cannot read the configuration runs jest without them and says so", () => {
    const dir = repository({ "jest.config.js": "throw new Error('broken config');\n", "test/a.test.js": 'test("a", () => expect(1).toBe(1));\n' });
    let stderr = "";
    try {
      execFileSync(process.execPath, [join(REPORTERS_DIR, "jest-run.cjs")], { cwd: dir, stdio: "pipe", env: { ...process.env, RANEX_JUNIT: join(dir, "junit.xml"), RANEX_JEST_SETUP: join(dir, "none.cjs") } });
    } catch (err) {
      stderr = String((err as { stderr?: Buffer }).stderr ?? "");
    }
    expect(stderr).toContain("ranex: jest's configuration could not be read, so the gate's canaries are not added");
  }, 60_000);
});
