import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectTestRunner } from "../../src/policy/detect.js";
import { renderStarter, testCommand } from "../../src/policy/init.js";
import { parsePolicy } from "../../src/policy/index.js";
import { expandedTest, preSteps } from "../../src/runners/scripts.js";
import { GIT_ENV, tempDir } from "../helpers/git-repo.js";

// `ranex init` follows what the repository really runs (issue 22): npm test through `npm run X`,
// the steps before the runner kept, Makefile/justfile/tox/nox test commands read, runners the gate
// cannot read named honestly, and files git ignores never taken for evidence.
function repoWith(files: Record<string, string>, gitInit = false): string {
  const dir = tempDir("ranex-scripts-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  if (gitInit) execFileSync("git", ["-C", dir, "init", "-q"], { env: GIT_ENV });
  return dir;
}
const pkg = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) => JSON.stringify({ name: "x", scripts, ...extra });

describe("npm test as npm runs it", () => {
  it("follows npm run indirection and keeps the steps before the runner", () => {
    const scripts = { test: "npm run generate && npm run test:unit", generate: "node gen.js", "test:unit": "node --test test/" };
    expect(expandedTest({ scripts })).toBe("node gen.js && node --test test/");
    expect(preSteps({ scripts }, /\bnode\b[^&|;]*--test\b/)).toEqual(["npm run generate"]);
    // Lint before the tests is a check's business, not the test command's.
    expect(preSteps({ scripts: { test: "npm run lint && node --test", lint: "eslint ." } }, /--test/)).toEqual([]);
    // npm runs pre<script> before the script: a build there is kept, a lint there left to checks.
    expect(preSteps({ scripts: { pretest: "rimraf build && tsc -p tsconfig.test.json", test: "c8 mocha test/*.mjs" } }, /\bmocha\b/)).toEqual(["npm run pretest"]);
    expect(preSteps({ scripts: { "pretest:unit": "npm run lint", lint: "eslint .", test: "npm run test:unit", "test:unit": "mocha" } }, /\bmocha\b/)).toEqual([]);
    expect(expandedTest({ scripts: { pretest: "npm run build", build: "tsc", test: "mocha" } })).toBe("tsc && mocha");
    // A script that calls itself is not followed forever.
    expect(expandedTest({ scripts: { test: "npm test" } })).toBe("npm test");
  });

  it("writes `npm run generate && node --test …` for `npm test` = `npm run generate && node --test`", async () => {
    const found = await detectTestRunner(repoWith({ "package.json": pkg({ test: "npm run generate && node --test", generate: "node gen.js" }), "test/a.test.js": "" }));
    expect(found.kind).toBe("node-test");
    expect(found.evidence).toBe("package.json scripts.test runs node --test (through npm run generate && node --test)");
    const command = testCommand(found);
    expect(command?.command).toBe('npm run generate && node --test --test-reporter="$RANEX_NODE_REPORTER" --test-reporter-destination="$RANEX_JUNIT"');
    expect(command?.note).toContain("npm run generate: kept from package.json's test script, which runs it before the tests.");
    expect(parsePolicy(renderStarter(found), ".github/ranex.yml").ok).toBe(true);
  });

  it("finds the runner behind `npm run test:unit`", async () => {
    const found = await detectTestRunner(repoWith({ "package.json": pkg({ test: "npm run test:unit", "test:unit": "vitest run" }, { devDependencies: { vitest: "^3" } }) }));
    expect(found.kind).toBe("vitest");
    expect(found.evidence).toBe("package.json scripts.test runs vitest (through npm run test:unit)");
  });
});

describe("a runner the gate cannot read yet", () => {
  it.each([
    // tape, ava and node-tap are read through the gate's TAP launcher (test/runners/tap.test.ts); uvu writes no TAP.
    [{ "package.json": pkg({ test: "npm run test:unit", "test:unit": "uvu tests" }, { devDependencies: { uvu: "^0.5" } }) }, /^package\.json scripts\.test runs uvu, which the gate cannot read yet; uvu writes neither TAP nor JUnit/],
    [{ Makefile: "all:\n\techo hi\n\ntest:\n\t@lab -v test\n" }, /^Makefile's test target runs lab, which the gate cannot read yet; make it write JUnit: `lab -r junit -o "\$RANEX_JUNIT"`/],
    [{ justfile: "test:\n    ./run-tests.sh --fast\n" }, /^justfile's test target runs '\.\/run-tests\.sh --fast', no runner the gate can read; make it write a JUnit XML report to \$RANEX_JUNIT/],
  ])("%#: one honest line, never a guess", async (files, line) => {
    const found = await detectTestRunner(repoWith(files));
    expect(found.kind).toBe("none");
    expect(found.evidence).toMatch(line);
    const text = renderStarter(found);
    expect(text).toContain(`# Written by \`ranex init\`: ${found.evidence}`);
    expect(parsePolicy(text, ".github/ranex.yml").ok).toBe(true);
  });
});

describe("files git ignores", () => {
  it("are no evidence: a gitignored package-lock.json never makes init write npm ci", async () => {
    const files = { "package.json": pkg({ test: "mocha" }, { devDependencies: { mocha: "^10" } }), "package-lock.json": "{}", ".gitignore": "package-lock.json\n" };
    expect((await detectTestRunner(repoWith(files, true))).install).toBe("npm install --no-audit --no-fund");
    expect((await detectTestRunner(repoWith({ ...files, ".gitignore": "" }, true))).install).toBe("npm ci --no-audit --no-fund");
  });
});
