import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runnersOf } from "../../src/measure/canary.js";
import { detectTestRunner } from "../../src/policy/detect.js";
import { renderStarter, testCommand } from "../../src/policy/init.js";
import { parsePolicy } from "../../src/policy/index.js";
import { canSelect, selectionFor } from "../../src/measure/select.js";
import { readerFor } from "../../src/runners/index.js";
import { tempDir } from "../helpers/git-repo.js";

// `ranex init` for the runners that write TAP (issue 22): it follows the test script to tape, ava or
// node-tap and writes the gate's TAP launcher with the files (and options) the script gives the
// runner, where it used to write "cannot read it yet".
function repoWith(files: Record<string, string>): string {
  const dir = tempDir("ranex-tap-init-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
const pkg = (scripts: Record<string, string>, devDependencies: Record<string, string>) => JSON.stringify({ name: "x", scripts, devDependencies });

describe("ranex init for TAP runners", () => {
  it.each([
    {
      files: { "package.json": pkg({ test: "npm run test:unit", "test:unit": "c8 tape test/*.js" }, { tape: "^5", c8: "^10" }) },
      kind: "tape", evidence: "package.json scripts.test runs tape (through npm run test:unit)",
      command: `node "$RANEX_REPORTERS/tap-run.cjs" tape 'test/*.js'`,
    },
    {
      files: { "package.json": pkg({ test: "tape -r esm 'test/**/*.js' | tap-spec" }, { tape: "^5", esm: "^3" }) },
      kind: "tape", evidence: "package.json scripts.test runs tape",
      command: `node "$RANEX_REPORTERS/tap-run.cjs" tape -r esm -- 'test/**/*.js'`,
    },
    {
      files: { "package.json": pkg({ test: "xo && ava" }, { ava: "^6" }) },
      kind: "ava", evidence: "package.json scripts.test runs ava",
      command: `node "$RANEX_REPORTERS/tap-run.cjs" ava 'test/**/*.{js,cjs,mjs}' '**/*.{test,spec}.{js,cjs,mjs}'`,
    },
    {
      files: { "package.json": pkg({ test: "tap test/*.js" }, { tap: "^21" }) },
      kind: "tap", evidence: "package.json scripts.test runs tap",
      command: `node "$RANEX_REPORTERS/tap-run.cjs" tap 'test/*.js'`,
    },
  ])("$kind: $command", async ({ files, kind, evidence, command }) => {
    const found = await detectTestRunner(repoWith(files));
    expect(found.kind).toBe(kind);
    expect(found.evidence).toBe(evidence);
    expect(testCommand(found)?.command).toBe(command);
    const text = renderStarter(found);
    expect(text).toContain("must write its TAP report to $RANEX_REPORT");
    expect(text).not.toContain("cannot read");
    expect(parsePolicy(text, ".github/ranex.yml").ok).toBe(true);
  });

  it("says when the files are a guess, and when the runner is not declared", async () => {
    const found = await detectTestRunner(repoWith({ "package.json": JSON.stringify({ name: "x", scripts: { test: "ava" } }) }));
    expect(testCommand(found)?.note.join("\n")).toMatch(/package\.json does not declare ava[\s\S]*the test script names no files: .* is a guess/);
  });

  it("gives each launcher command its runner's canary and the TAP reader", () => {
    expect(runnersOf(`node "$RANEX_REPORTERS/tap-run.cjs" tape 'test/*.js'`)).toEqual(["tape"]);
    expect(runnersOf(`node "$RANEX_REPORTERS/tap-run.cjs" ava test/a.js`)).toEqual(["ava"]);
    expect(runnersOf(`node "$RANEX_REPORTERS/tap-run.cjs" tap test/a.js`)).toEqual(["node-tap"]);
    // node --test through the launcher keeps node:test's preload canary.
    expect(runnersOf(`node "$RANEX_REPORTERS/tap-run.cjs" node-test 'test/*.test.js'`)).toEqual(["node:test"]);
    expect(readerFor(`node "$RANEX_REPORTERS/tap-run.cjs" tape x.js`, "TAP version 14\n# ranex tap-run: tape\n1..0\n")?.format).toBe("TAP");
  });

  it("selects through the launcher: the command unchanged, the ids in $RANEX_SELECT_FILE; a runner run without it cannot select", () => {
    const how = (runner: string) => {
      const command = `node "$RANEX_REPORTERS/tap-run.cjs" ${runner} 'test/*.js'`;
      const selection = selectionFor({ command }, ["test/a.js::adds"], "/report/select.txt", "bwrap");
      expect(selection?.command).toBe(command);
      expect(selection?.env).toMatchObject({ RANEX_SELECT_FILE: "/report/select.txt" });
      return selection?.how;
    };
    expect(["tape", "ava", "tap", "node-test"].map(how)).toEqual([
      "the TAP launcher, by file (tape cannot select by name)", "the TAP launcher, by file and ava --match",
      "the TAP launcher, by file and node-tap --grep", "the TAP launcher, by file and node --test-name-pattern",
    ]);
    for (const command of ["tape test/*.js", "ava --tap > \"$RANEX_REPORT\"", "tap test/*.js"]) expect(canSelect({ command }), command).toBe(false);
  });
});
