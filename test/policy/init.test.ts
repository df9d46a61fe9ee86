import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePolicy, POLICY_PATH } from "../../src/policy/index.js";
import { starterPolicy } from "../../src/policy/init.js";
import { run } from "../../src/cli/commands/init.js";
import type { CliIo } from "../../src/cli/io.js";
import { git, tempDir } from "../helpers/git-repo.js";
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
  it("vitest 1.3 and later, or a range the gate cannot read, gets the gate's launcher; an older vitest keeps vitest's own command, saying why", async () => {
    // The launcher starts vitest through parseCLI (1.3 and later), and adds its canaries before 3.1 through vite's config hook.
    for (const range of ["^1.6.0", "~3.0.9", "*", "latest"]) {
      const { policy } = await validStarter(repoWith({
        "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: range } }), "package-lock.json": "{}",
      }));
      expect(policy.tests.command, range).toBe('node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests');
    }
    const old = await validStarter(repoWith({
      "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: "^0.34.6" } }), "package-lock.json": "{}",
    }));
    expect(old.policy.tests.command).toBe('node_modules/.bin/vitest run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests');
    expect(old.text).toContain("vitest's own command, not the gate's launcher: package.json allows vitest ^0.34.6, older than 1.3");
    // The lock decides over the range: ^1.0.1 locked at 1.0.1 (blakeembrey/change-case), or at 1.6.1.
    const lock = (version: string) => JSON.stringify({ packages: { "node_modules/vitest": { version } } });
    const locked = await validStarter(repoWith({
      "package.json": pkg({ devDependencies: { vitest: "^1.0.1" } }), "package-lock.json": lock("1.0.1"),
    }));
    expect(locked.text).toContain("vitest's own command, not the gate's launcher: package-lock.json installs vitest 1.0.1, older than 1.3");
    const newer = await validStarter(repoWith({
      "package.json": pkg({ devDependencies: { vitest: "^1.0.1" } }), "package-lock.json": lock("1.6.1"),
    }));
    expect(newer.policy.tests.command).toMatch(/^node "\$RANEX_REPORTERS\/vitest-run\.cjs" run /);
  });

  it("vitest with projects of its own keeps vitest's own command, and says the canaries cannot reach its files", async () => {
    const configs: [Record<string, string>, string][] = [
      [{ "vitest.workspace.ts": "export default ['packages/*'];\n" }, "vitest.workspace.ts gives vitest projects of its own"],
      [{ "vitest.config.ts": "export default { test: { projects: ['packages/*'] } };\n" }, "vitest.config.ts gives vitest projects of its own"],
      [{ "vite.config.mts": "export default { test: { workspace: [{ test: { name: 'a' } }] } };\n" }, "vite.config.mts gives vitest projects of its own"],
    ];
    for (const [files, why] of configs) {
      const { text, policy } = await validStarter(repoWith({
        "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: "^3.2.0" } }), "package-lock.json": "{}", ...files,
      }));
      expect(policy.tests.command).toBe('node_modules/.bin/vitest run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests');
      expect(text).toContain(`vitest's own command, not the gate's launcher: ${why}.`);
      expect(text).toContain("repeats run the whole suite");
    }
    // A configuration without projects keeps the launcher.
    const plain = await validStarter(repoWith({
      "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: "^3.2.0" } }), "vitest.config.ts": "export default { test: { globals: true } };\n",
    }));
    expect(plain.policy.tests.command).toMatch(/^node "\$RANEX_REPORTERS\/vitest-run\.cjs" run /);
  });

  it("vitest from the test script, with npm ci for a lock file and a typecheck check", async () => {
    const { policy } = await validStarter(repoWith({
      "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: "4" } }),
      "package-lock.json": "{}", "tsconfig.json": "{}",
    }));
    // vitest declared: the gate's launcher, whose canaries run inside every test file (issue 19).
    expect(policy.tests.command).toBe('node "$RANEX_REPORTERS/vitest-run.cjs" run --reporter=junit --outputFile="$RANEX_JUNIT" --passWithNoTests');
    expect(policy.tests.setup).toBe("npm ci --no-audit --no-fund");
    // Detected checks are written only once `ranex init` has seen them pass on HEAD.
    expect(policy.checks).toEqual([{ name: "typecheck", run: "npx --no-install tsc --noEmit", timeout: 300 }]);
    expect(policy.require).toContain("check:typecheck");
  });

  it("requires what the policy default requires, tests.stable included, and says what a repeat costs with this runner", async () => {
    const vitest = await validStarter(repoWith({ "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: "4" } }) }));
    expect(vitest.policy.require).toEqual(["diff.frozen", "diff.scope", "diff.safety", "secrets", "tests.regression", "tests.red_green", "tests.stable"]);
    expect(vitest.policy.tests.repeat).toBe(3);
    expect(vitest.text).toContain("vitest through the gate's launcher repeats only the targets");
    const pytest = await validStarter(repoWith({ "pytest.ini": "[pytest]\n" }));
    expect(pytest.policy.require).toContain("tests.stable");
    expect(pytest.text).toContain("pytest repeats only the targets");
    const jest = await validStarter(repoWith({ "package.json": pkg({ scripts: { test: "jest" }, devDependencies: { jest: "30", "jest-junit": "17" } }) }));
    expect(jest.text).toContain("jest repeats only the targets");
  });

  it("a yarn Plug'n'Play repository: setup installs node_modules, and the starter says so in one line", async () => {
    const berryLock = "__metadata:\n  version: 8\n  cacheKey: 10\n";
    const { text, policy } = await validStarter(repoWith({ "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: "^3.2.0" }, packageManager: "yarn@4.5.0" }), "yarn.lock": berryLock }));
    expect(policy.tests.setup).toBe("NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt YARN_NODE_LINKER=node-modules npx --yes -p @yarnpkg/cli-dist@4.5.0 yarn install --immutable");
    expect(text).toContain("  # yarn Plug'n'Play (no nodeLinker in .yarnrc.yml) is installed as node_modules (YARN_NODE_LINKER)");
    const linked = await starterPolicy(repoWith({ "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: "^3.2.0" } }), "yarn.lock": berryLock, ".yarnrc.yml": "nodeLinker: node-modules\n" }));
    expect(linked).not.toContain("Plug'n'Play");
    expect(linked).not.toContain("scratch_mb");
  });

  // Found on reduxjs/reselect: init saw only top-level names, so the committed release was never found.
  it("berry runs the release .yarnrc.yml's yarnPath names when the commit has it, else comes through npx", async () => {
    const files = {
      "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: "^3.2.0" }, packageManager: "yarn@4.5.0" }),
      "yarn.lock": "__metadata:\n  version: 8\n", ".yarnrc.yml": "nodeLinker: node-modules\nyarnPath: .yarn/releases/yarn-4.5.0.cjs\n",
    };
    const committed = repoWith({ ...files, ".yarn/releases/yarn-4.5.0.cjs": "// yarn\n" });
    expect((await validStarter(committed)).policy.tests.setup).toBe("NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt node .yarn/releases/yarn-4.5.0.cjs install --immutable");
    const ignored = repoWith({ ...files, ".yarn/releases/yarn-4.5.0.cjs": "// yarn\n", ".gitignore": ".yarn/\n" });
    git(ignored, "init", "-q");
    expect((await validStarter(ignored)).policy.tests.setup).toBe("NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt npx --yes -p @yarnpkg/cli-dist@4.5.0 yarn install --immutable");
  });

  it("jest through the gate's launcher, telling the owner what is not declared", async () => {
    const { text, policy } = await validStarter(repoWith({ "package.json": pkg({ scripts: { test: "jest" }, devDependencies: { jest: "30" } }), "yarn.lock": "" }));
    expect(policy.tests.command).toBe('node "$RANEX_REPORTERS/jest-run.cjs"');
    expect(policy.tests.setup).toBe("npx --yes yarn@1 install --frozen-lockfile --ignore-engines");
    expect(text).toContain("package.json does not declare jest-junit");
    // Found on immerjs/immer: yarn 1's cache of unpacked packages filled the default 512 MiB scratch.
    expect(policy.sandbox.scratch_mb).toBe(3072);
    const withReporter = await starterPolicy(repoWith({ "package.json": pkg({ devDependencies: { jest: "29", "jest-junit": "16" } }) }));
    expect(withReporter).not.toContain("does not declare");
  });

  it("mocha and a runner from the toolchain: the binary on PATH, no install", async () => {
    const { text, policy } = await validStarter(repoWith({ "package.json": pkg({ scripts: { test: "mocha" } }), ".mocharc.yml": "" }));
    expect(policy.tests.command).toBe('node "$RANEX_REPORTERS/mocha-run.cjs"');
    expect(policy.tests.setup).toBeUndefined();
    expect(text).toContain("does not declare mocha or mocha-junit-reporter");
    const fromConfig = await validStarter(repoWith({ "package.json": pkg({}), "vitest.config.ts": "" }));
    expect(fromConfig.policy.tests.command).toMatch(/^node "\$RANEX_REPORTERS\/vitest-run\.cjs" run /);
  });

  it("pytest from pyproject.toml, pytest.ini or test files", async () => {
    const layouts: Record<string, string>[] = [
      { "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n" },
      { "pytest.ini": "[pytest]\n" },
      { "tests/test_app.py": "def test_x():\n    assert True\n" },
    ];
    for (const files of layouts) {
      const { policy } = await validStarter(repoWith(files));
      expect(policy.tests.command, JSON.stringify(files)).toMatch(/^python3 -m pytest --junitxml="\$RANEX_JUNIT"( tests)?$/);
      expect(policy.tests.setup).toBeUndefined();
    }
  });

  it("unittest suites run through pytest", async () => {
    const { text, policy } = await validStarter(repoWith({ "tests/test_x.py": "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n" }));
    expect(policy.tests.command).toBe('python3 -m pytest --junitxml="$RANEX_JUNIT" tests');
    expect(text).toContain("unittest.TestCase tests (run through pytest)");
  });

  // Found on stefankoegl/python-json-patch (issue 22): its suite is a top-level tests.py (`python
  // tests.py`), which pytest does not collect unless named, so init's try found 0 tests; and the
  // default tests.files did not freeze it, so a PR could weaken it unseen.
  it("a top-level tests.py: the command names it and tests.files freezes it; a script that reads sys.argv is left out", async () => {
    const dir = repoWith({
      "calc.py": "def add(a, b):\n    return a + b\n",
      "tests.py": "import unittest\nimport calc\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(2, 3), 5)\n\nif __name__ == '__main__':\n    unittest.main()\n",
      // Runs its own suite at import from sys.argv: under pytest it would fail to load.
      "ext_tests.py": "import sys, unittest\nclass Template(unittest.TestCase):\n    pass\nfor name in sys.argv[1:]:\n    open(name)\n",
    });
    const { policy } = await validStarter(dir);
    expect(policy.tests.command).toBe('python3 -m pytest --junitxml="$RANEX_JUNIT" tests.py');
    expect(policy.tests.files).toContain("tests.py");
    expect(policy.tests.files).not.toContain("ext_tests.py");
    const report = join(dir, "junit.xml");
    execFileSync("sh", ["-c", policy.tests.command ?? "false"], { cwd: dir, env: { PATH: process.env.PATH, RANEX_JUNIT: report }, stdio: "pipe" });
    expect(readFileSync(report, "utf8")).toMatch(/<testcase[^>]*name="test_add"/);
    // A pytest config that names its own files is the owner's choice: nothing is added.
    const configured = await validStarter(repoWith({ ...{ "tests.py": "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n" }, "setup.cfg": "[tool:pytest]\npython_files = tests.py\n" }));
    expect(configured.policy.tests.command).toBe('python3 -m pytest --junitxml="$RANEX_JUNIT"');
  });

  // Found on tkem/cachetools (issue 15): the package lives in src/ and is installed by tox, so the
  // tests' `import cachetools` failed in every file and init reported "no tests".
  it("a src layout: the command puts src on PYTHONPATH (keeping the gate's own entries), and the tests import the package", async () => {
    const dir = repoWith({
      "pyproject.toml": "[project]\nname = \"shapes\"\n",
      "src/shapes/__init__.py": "def area(w, h):\n    return w * h\n",
      "tests/test_area.py": "import unittest\nimport shapes\n\nclass AreaTest(unittest.TestCase):\n    def test_area(self):\n        self.assertEqual(shapes.area(2, 3), 6)\n",
    });
    const { policy } = await validStarter(dir);
    expect(policy.tests.command).toBe('PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest --junitxml="$RANEX_JUNIT" tests');
    const report = join(dir, "junit.xml");
    execFileSync("sh", ["-c", policy.tests.command ?? "false"], { cwd: dir, env: { PATH: process.env.PATH, RANEX_JUNIT: report }, stdio: "pipe" });
    expect(readFileSync(report, "utf8")).toMatch(/<testcase[^>]*name="test_area"/);
  });

  it("a src layout whose pytest config sets pythonpath itself keeps the plain command", async () => {
    const { policy } = await validStarter(repoWith({
      "pyproject.toml": "[tool.pytest.ini_options]\npythonpath = [\"src\"]\n",
      "src/shapes/__init__.py": "",
      "tests/test_area.py": "def test_area():\n    pass\n",
    }));
    expect(policy.tests.command).toBe('python3 -m pytest --junitxml="$RANEX_JUNIT" tests');
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
    expect(await run(["--no-try"], io)).toBe(0);
    const target = join(dir, POLICY_PATH);
    expect(parsePolicy(readFileSync(target, "utf8")).ok).toBe(true);
    expect(io.out.join("")).toContain(`wrote ${target}`);

    writeFileSync(target, "version: 1\n# mine\n");
    const again = captureIo(dir);
    expect(await run(["--no-try"], again)).toBe(2);
    expect(again.err.join("")).toMatch(/already exists; pass --force/);
    expect(readFileSync(target, "utf8")).toBe("version: 1\n# mine\n");

    expect(await run(["--force", "--no-try"], captureIo(dir))).toBe(0);
    expect(readFileSync(target, "utf8")).toContain("pytest");
  });

  it("says when it writes vitest's own command rather than the gate's launcher, and why", async () => {
    const dir = repoWith({ "package.json": pkg({ scripts: { test: "vitest run" }, devDependencies: { vitest: "^3.2.0" } }), "vitest.workspace.ts": "export default ['packages/*'];\n" });
    const io = captureIo(dir);
    expect(await run(["--no-try"], io)).toBe(0);
    expect(io.out.join("")).toContain("note: vitest's own command, not the gate's launcher: vitest.workspace.ts gives vitest projects of its own; its canary cannot see");
  });

  it("--dir is resolved against the working directory", async () => {
    const parent = repoWith({ "app/package.json": pkg({ scripts: { test: "node --test" } }) });
    expect(await run(["--dir", "app", "--no-try"], captureIo(parent))).toBe(0);
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

describe("ranex init tries the policy on HEAD", () => {
  function committed(files: Record<string, string>): string {
    const dir = repoWith(files);
    git(dir, "init", "-q", "-b", "main");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "base");
    return dir;
  }

  it("prints tests per file, keeps a check that passes and leaves out one that fails on HEAD already", async () => {
    const dir = committed({
      "package.json": pkg({ scripts: { test: "node --test", lint: "echo 'lint: 3 problems' && exit 3", typecheck: "true" } }),
      "test/add.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.equal(1 + 1, 2));\ntest('fails already', () => assert.equal(1, 2));\n",
    });
    const io = captureIo(dir);
    expect(await run(["--data-dir", tempDir()], io)).toBe(0);
    const out = io.out.join("");
    expect(out).toMatch(/trying it on HEAD [0-9a-f]{12} in the sandbox/);
    expect(out).toMatch(/^tests found: 2 in 1 file\(s\)\n {2}test\/add\.test\.js {2}2 \(1 passed, 1 failed\)$/m);
    expect(out).toContain("failing on HEAD already: 1 (test/add.test.js::fails already)");
    expect(out).toMatch(/^check lint \(npm run lint\) not written: it fails on HEAD already \(exit 3: lint: 3 problems\)$/m);
    expect(out).toMatch(/^timing: checkout \d+\.\d s, tests \d+\.\d s, checks \d+\.\d s$/m);
    const policy = parsePolicy(readFileSync(join(dir, POLICY_PATH), "utf8"));
    expect(policy.ok && policy.policy.checks.map((c) => c.name)).toEqual(["typecheck"]);
    expect(policy.ok && policy.policy.require).toContain("check:typecheck");
    expect(policy.ok && policy.policy.require).not.toContain("check:lint");
  }, 120_000);

  it("mocha from the toolchain: the launcher keeps runner flags out of the tests' process.argv", async () => {
    const dir = committed({
      "package.json": pkg({ scripts: { test: "mocha" } }),
      "test/argv.test.js": "const assert = require('node:assert');\ndescribe('cli', () => { it('sees no runner flags', () => assert.deepEqual(process.argv.slice(2), [])); });\n",
    });
    const io = captureIo(dir);
    expect(await run(["--data-dir", tempDir(), "--toolchain", join(process.cwd(), "node_modules", ".bin")], io)).toBe(0);
    expect(io.out.join("")).toMatch(/^ {2}test\/argv\.test\.js {2}1 \(1 passed\)$/m);
  }, 120_000);

  it("names the first problem and its fix, and exits 1, when the runner is not in the sandbox", async () => {
    const dir = committed({ "package.json": pkg({ scripts: { test: "vitest run" } }), "test/a.test.js": "" });
    const io = captureIo(dir);
    expect(await run(["--data-dir", tempDir()], io)).toBe(1);
    const out = io.out.join("");
    // The gate's launcher looks for vitest in the tree and the toolchain, and says where it looked.
    expect(out).toMatch(/^problem: no JUnit report.*exited with 1.*ranex: vitest cannot be found from \/work: add vitest to devDependencies/m);
    expect(out).toMatch(/^fix: a package the command needs is missing: add it to devDependencies \(ranex init --add-deps\) or to the toolchain/m);
    expect(existsSync(join(dir, POLICY_PATH))).toBe(true);
  }, 120_000);
});
