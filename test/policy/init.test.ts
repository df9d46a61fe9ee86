import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePolicy, POLICY_PATH } from "../../src/policy/index.js";
import { starterPolicy } from "../../src/policy/init.js";
import { run } from "../../src/cli/commands/init.js";
import type { CliIo } from "../../src/cli/io.js";
import { tempDir } from "../helpers/git-repo.js";
import { NODE_REPORTER } from "../../src/measure/reporters.js";

function repoWith(files: Record<string, string>): string {
  const dir = tempDir("ranex-init-");
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

async function validStarter(dir: string) {
  const text = await starterPolicy(dir);
  const result = parsePolicy(text);
  if (!result.ok) throw new Error(`starter does not validate:\n${JSON.stringify(result.errors)}\n${text}`);
  return { text, policy: result.policy };
}

const pkg = (body: object) => JSON.stringify(body);

describe("starterPolicy detects the runner and validates", () => {
  it("vitest from the test script, with npm ci for a lock file and a typecheck check", async () => {
    const { policy } = await validStarter(repoWith({
      "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: "4" } }),
      "package-lock.json": "{}", "tsconfig.json": "{}",
    }));
    expect(policy.tests.command).toBe('npx vitest run --reporter=junit --outputFile="$RANEX_JUNIT"');
    expect(policy.tests.setup).toBe("npm ci");
    expect(policy.checks).toEqual([{ name: "typecheck", run: "npx tsc --noEmit", timeout: 300 }]);
    expect(policy.require).toContain("check:typecheck");
  });

  it("jest, telling the owner when jest-junit is missing", async () => {
    const { text, policy } = await validStarter(repoWith({ "package.json": pkg({ scripts: { test: "jest" } }), "yarn.lock": "" }));
    expect(policy.tests.command).toBe('JEST_JUNIT_OUTPUT_FILE="$RANEX_JUNIT" npx jest --ci --reporters=default --reporters=jest-junit');
    expect(policy.tests.setup).toBe("yarn install --frozen-lockfile");
    expect(text).toContain("add it to devDependencies");
    const withReporter = await starterPolicy(repoWith({ "package.json": pkg({ devDependencies: { jest: "29", "jest-junit": "16" } }) }));
    expect(withReporter).not.toContain("add it to devDependencies");
  });

  it("pytest from pyproject.toml, pytest.ini or test files", async () => {
    const layouts: Record<string, string>[] = [
      { "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n" },
      { "pytest.ini": "[pytest]\n" },
      { "tests/test_app.py": "def test_x():\n    assert True\n" },
    ];
    for (const files of layouts) {
      const { policy } = await validStarter(repoWith(files));
      expect(policy.tests.command, JSON.stringify(files)).toBe('python3 -m pytest -q -p no:cacheprovider --continue-on-collection-errors -o xfail_strict=true --junitxml="$RANEX_JUNIT"');
      expect(policy.tests.setup).toBeUndefined();
    }
  });

  it("no runner: a policy without test claims that still blocks on the diff claims", async () => {
    const { text, policy } = await validStarter(repoWith({ "README.md": "hi\n", "package.json": pkg({ scripts: { test: "echo \"Error: no test specified\" && exit 1" } }) }));
    expect(policy.tests.command).toBeUndefined();
    expect(policy.require).toEqual(["diff.frozen", "diff.scope", "diff.safety", "secrets"]);
    expect(text).toContain("No test runner was found");
  });

  // The starter's command is only useful if it really writes JUnit where the judge looks for it.
  it("node --test: the starter command writes a JUnit report to $RANEX_JUNIT", async () => {
    const dir = repoWith({
      "package.json": pkg({ scripts: { test: "node --test" } }),
      "test/add.test.js": "import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => assert.equal(1 + 1, 2));\n",
    });
    const { policy } = await validStarter(dir);
    const report = join(dir, "junit.xml");
    const env = { PATH: process.env.PATH, RANEX_JUNIT: report, RANEX_NODE_REPORTER: NODE_REPORTER };
    execFileSync("sh", ["-c", policy.tests.command ?? "false"], { cwd: dir, env, stdio: "pipe" });
    // The gate's reporter names the file, so the tests of a PR's new test files can be found.
    expect(readFileSync(report, "utf8")).toMatch(/<testcase[^>]*name="adds"[^>]*file="test\/add.test.js"/);
  });

  it("pytest: the starter command writes a JUnit report to $RANEX_JUNIT", async () => {
    const dir = repoWith({ "tests/test_math.py": "def test_adds():\n    assert 1 + 1 == 2\n" });
    const { policy } = await validStarter(dir);
    const report = join(dir, "junit.xml");
    execFileSync("sh", ["-c", policy.tests.command ?? "false"], { cwd: dir, env: { PATH: process.env.PATH, RANEX_JUNIT: report }, stdio: "pipe" });
    expect(readFileSync(report, "utf8")).toMatch(/<testcase[^>]*name="test_adds"/);
  });
});

function captureIo(cwd: string): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, cwd, env: {}, stdout: (t) => out.push(t), stderr: (t) => err.push(t) };
}

describe("ranex init", () => {
  it("writes .github/ranex.yml, refuses to overwrite it, and overwrites with --force", async () => {
    const dir = repoWith({ "pytest.ini": "[pytest]\n" });
    const io = captureIo(dir);
    expect(await run([], io)).toBe(0);
    const target = join(dir, POLICY_PATH);
    expect(parsePolicy(readFileSync(target, "utf8")).ok).toBe(true);
    expect(io.out.join("")).toContain(`wrote ${target}`);

    writeFileSync(target, "version: 1\n# mine\n");
    const again = captureIo(dir);
    expect(await run([], again)).toBe(2);
    expect(again.err.join("")).toMatch(/already exists; pass --force/);
    expect(readFileSync(target, "utf8")).toBe("version: 1\n# mine\n");

    expect(await run(["--force"], captureIo(dir))).toBe(0);
    expect(readFileSync(target, "utf8")).toContain("pytest");
  });

  it("--dir is resolved against the working directory", async () => {
    const parent = repoWith({ "app/package.json": pkg({ scripts: { test: "node --test" } }) });
    expect(await run(["--dir", "app"], captureIo(parent))).toBe(0);
    expect(readFileSync(join(parent, "app", POLICY_PATH), "utf8")).toContain('--test-reporter="$RANEX_NODE_REPORTER"');
  });

  it("bad arguments and a missing directory exit 2 with a message", async () => {
    const dir = tempDir();
    for (const args of [["--bogus"], ["--dir"], ["--dir", "nope/nowhere"]]) {
      const io = captureIo(dir);
      expect(await run(args, io), args.join(" ")).toBe(2);
      expect(io.err.join("")).toMatch(/^ranex init: /);
    }
    expect(existsSync(join(dir, POLICY_PATH))).toBe(false);
  });
});
