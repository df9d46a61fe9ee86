import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { placeCanary, stripCanary } from "../../src/measure/canary.js";
import { parseJunit } from "../../src/measure/junit.js";
import { treeResolver } from "../../src/measure/junit-read.js";
import { REPORTERS_DIR } from "../../src/measure/reporters.js";

// vitest's canaries inside every test file (src/runners/canary-in-file.ts), through the gate's real
// launcher (reporters/vitest-run.cjs) and this project's real vitest, outside the sandbox.
const LAUNCHED = 'node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT"';

function repository(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "ranex-vitest-canary-"));
  for (const [path, text] of Object.entries({ "package.json": '{"name":"c","private":true,"type":"module"}\n', ...files })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  symlinkSync(join(import.meta.dirname, "..", "..", "node_modules"), join(dir, "node_modules"));
  return dir;
}

describe("vitest's canaries inside every test file", () => {
  it("run in every file after its own tests, keep the configuration's setup files, and catch expect neutered inside a test", async () => {
    const dir = repository({
      "vitest.config.mjs": 'export default { test: { setupFiles: ["./test/setup.js"] } };\n',
      "test/setup.js": "globalThis.ownSetupRan = true;\n",
      "test/own.test.js": [
        'import { expect, test } from "vitest";',
        'test("keeps the own setup", () => expect(globalThis.ownSetupRan).toBe(true));',
        'test("sees no gate variable", () => expect(Object.keys(process.env).filter((k) => k.startsWith("RANEX_VITEST"))).toEqual([]));',
      ].join("\n"),
      // Neutered inside the file's last test: only canaries that run after it can see it.
      "test/late.test.js": [
        'import { describe, expect, test } from "vitest";',
        'test("first", () => expect([1]).toEqual([1]));',
        'describe("group", () => { test("neuters", () => { expect.extend({ ["to" + "Be"]: () => ({ pass: true, message: () => "" }) }); expect(1).toBe(2); }); });',
      ].join("\n"),
    });
    const gate = join(dir, ".gate");
    const placed = await placeCanary(LAUNCHED, dir, gate, gate);
    expect(placed.members.map((m) => [m.via, m.expect, m.inEachFile])).toEqual([
      ["vitest expect().toBe in every test file", "fail", true], ["vitest expect().toEqual in every test file", "fail", true],
      ["vitest expect().toThrow in every test file", "fail", true], ["vitest expect().toBe in every test file", "pass", true],
      ["vitest's test registration in every frozen test file, and the values every test file compares", "pass", true],
      ["the intrinsics (Object.is, Array.prototype, JSON, ...) in every vitest test file's context", "pass", true],
    ]);
    try {
      execFileSync(process.execPath, [join(REPORTERS_DIR, "vitest-run.cjs"), "run", "--reporter=junit", `--outputFile=${join(dir, "junit.xml")}`], {
        cwd: dir, stdio: "pipe", env: { ...process.env, ...placed.env, RANEX_JUNIT: join(dir, "junit.xml") },
      });
    } catch {
      // The canaries that must fail make vitest exit 1.
    }
    const { report, outcome } = stripCanary(parseJunit(readFileSync(join(dir, "junit.xml"), "utf8"), treeResolver(dir)), placed);
    expect(Object.fromEntries(report.cases.map((c) => [c.id, c.result]))).toEqual({
      "test/own.test.js::keeps the own setup": "passed",
      "test/own.test.js::sees no gate variable": "passed",
      "test/late.test.js::first": "passed",
      "test/late.test.js::group > neuters": "passed",
    });
    const [toBe, ...rest] = outcome.members ?? [];
    expect(toBe?.inEachFile).toEqual({ files: 2, wrong: [{ file: "test/late.test.js", result: "passed" }], wrongCount: 1 });
    for (const m of rest) expect(m.inEachFile).toEqual({ files: 2, wrong: [], wrongCount: 0 });
  }, 120_000);
});
