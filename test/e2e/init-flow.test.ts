import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { failingText, parseVerdict, REPO_ROOT, runCli } from "./run-cli.js";

// From `ranex init` to a first verdict, as a newcomer would (issue 15): build a repository, run
// `ranex init` in it (which tries the policy on HEAD), commit what it wrote, and judge an honest PR.
// No hand edits. jest and vitest come from this project's own node_modules/.bin (toolchain.path):
// there is no network but the npm registry, and these tests may not depend on it.

const run = promisify(execFile);
const TOOLCHAIN = join(REPO_ROOT, "node_modules", ".bin");

async function build(name: string): Promise<string> {
  const dir = join(tempDir(`ranex-${name}-`), name);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  await run("bash", [join(FIXTURES_DIR, `${name}.sh`), dir], { env });
  return dir;
}

/** Commits the policy on main and replays the honest head on top of it, as a PR opened after it. */
function commitPolicy(repo: string): void {
  git(repo, "add", ".github/ranex.yml");
  git(repo, "commit", "-q", "-m", "ranex: policy from ranex init");
  git(repo, "checkout", "-q", "honest");
  git(repo, "rebase", "-q", "main");
  git(repo, "checkout", "-q", "main");
}

const CASES = [
  { name: "init-jest", toolchain: true, tests: /tests found: 3 in 1 file\(s\)\n {2}test\/cli\.test\.js {2}3 \(3 passed\)/ },
  { name: "init-vitest", toolchain: true, tests: /tests found: 1 in 1 file\(s\)\n {2}test\/server\.test\.js {2}1 \(1 passed\)/ },
  { name: "init-lockfile", toolchain: false, tests: /setup \d+\.\d s \(installed once, now cached\).*\ntests found: 1 in 1 file\(s\)/, setup: true },
];

describe.each(CASES)("$name: ranex init, then an honest PR", ({ name, toolchain, tests, setup }) => {
  it("init tries the policy on HEAD and says what it found; the honest PR is a CANDIDATE", async () => {
    const repo = await build(name);
    const data = tempDir("ranex-data-");
    const init = await runCli(["init", "--dir", repo, "--data-dir", data, ...(toolchain ? ["--toolchain", TOOLCHAIN] : [])], 240_000);
    expect(init.stderr).toBe("");
    expect(init.code, init.stdout).toBe(0);
    expect(init.stdout).toMatch(/trying it on HEAD [0-9a-f]{12} in the sandbox/);
    expect(init.stdout).toMatch(tests);
    commitPolicy(repo);
    const judged = await runCli(["judge", "--repo", repo, "--base", "main", "--head", "honest", "--data-dir", data, "--json"], 240_000);
    const verdict = parseVerdict(judged);
    expect(verdict.verdict, failingText(verdict)).toBe("CANDIDATE");
    if (setup === true) {
      // init installed the dependencies into the judgment's cache: no run of the judgment installs them again.
      const runs = (verdict as unknown as { runs: { run: string; setup?: string }[] }).runs.filter((r) => !r.run.startsWith("check:"));
      expect(runs.length).toBeGreaterThan(0);
      for (const run of runs) expect(run.setup, run.run).toMatch(/^dependencies from cache \(installed once in [\d.]+ s on \d{4}-\d\d-\d\d, key sha256:[0-9a-f]{64}\)$/);
    }
  }, 600_000);
});

describe("ranex tests and ranex task check", () => {
  it("list clean ids, and tell a task author which targets cannot go red to green", async () => {
    const repo = await build("init-jest");
    const data = tempDir("ranex-data-");
    expect((await runCli(["init", "--dir", repo, "--data-dir", data, "--toolchain", TOOLCHAIN, "--no-try"])).code).toBe(0);
    // A task naming one test that passes today and one the PR is to add.
    git(repo, "add", ".github/ranex.yml");
    const tasks = join(repo, ".ranex", "tasks");
    await run("mkdir", ["-p", tasks]);
    writeFileSync(join(tasks, "fmt.yml"), "id: fmt\ntitle: format\ntargets:\n  - 'test/cli.test.js::parse sets verbose'\n  - 'test/format.test.js::format writes verbose first'\n  - 'test/cli.test.js::parse keeps a word'\n");
    git(repo, "add", ".ranex");
    git(repo, "commit", "-q", "-m", "policy and task");

    const listed = await runCli(["tests", "--repo", repo, "--rev", "main", "--data-dir", data, "--json"], 240_000);
    expect(listed.code, listed.stderr).toBe(0);
    const ids = (JSON.parse(listed.stdout) as { tests: { id: string }[] }).tests.map((t) => t.id);
    expect(ids).toContain("test/cli.test.js::parse sets verbose");
    expect(ids.every((id) => id.startsWith("test/cli.test.js::"))).toBe(true);
    expect(ids.join("\n")).not.toContain("undefined");

    const checked = await runCli(["task", "check", "fmt", "--repo", repo, "--base", "main", "--data-dir", data], 240_000);
    expect(checked.code, checked.stderr).toBe(1);
    expect(checked.stdout).toMatch(/^GREEN +test\/cli\.test\.js::parse sets verbose: already passes on the base/m);
    expect(checked.stdout).toMatch(/^ABSENT +test\/format\.test\.js::format writes verbose first: no test has this id on the base, and absent is not red/m);
    expect(checked.stdout).toMatch(/^AMBIGUOUS test\/cli\.test\.js::parse keeps a word/m);
  }, 600_000);
});

describe("jest ids", () => {
  it("are <file>::<title path> for tests outside any describe and in a file's second describe", async () => {
    const repo = await build("init-jest");
    const data = tempDir("ranex-data-");
    expect((await runCli(["init", "--dir", repo, "--data-dir", data, "--toolchain", TOOLCHAIN, "--no-try"])).code).toBe(0);
    // jest-junit names a file's suite after the first test's describe, "undefined" when it has none.
    writeFileSync(join(repo, "test", "top.test.js"), [
      "\"use strict\";",
      "test(\"alone at the top\", () => { expect(1).toBe(1); });",
      "describe(\"first\", () => { test(\"one\", () => { expect(1).toBe(1); }); });",
      "describe(\"second\", () => { describe(\"inner\", () => { test(\"two\", () => { expect(2).toBe(2); }); }); });",
      "",
    ].join("\n"));
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "policy and a test file of every shape");

    const listed = await runCli(["tests", "--repo", repo, "--rev", "main", "--data-dir", data, "--json"], 240_000);
    expect(listed.code, listed.stderr).toBe(0);
    const ids = (JSON.parse(listed.stdout) as { tests: { id: string }[] }).tests.map((t) => t.id).filter((id) => id.startsWith("test/top.test.js"));
    expect(ids.sort()).toEqual([
      "test/top.test.js::alone at the top",
      "test/top.test.js::first one",
      "test/top.test.js::second inner two",
    ]);
  }, 600_000);
});

describe("a jest test file that no longer loads", () => {
  it("is a FAIL of tests.regression naming the file and why, and the first problem `ranex tests` names", async () => {
    const repo = await build("init-jest");
    const data = tempDir("ranex-data-");
    expect((await runCli(["init", "--dir", repo, "--data-dir", data, "--toolchain", TOOLCHAIN, "--no-try"])).code).toBe(0);
    // A second test file that still loads on the head, whose title ends in a path of the tree.
    writeFileSync(join(repo, "README.md"), "init-jest\n");
    writeFileSync(join(repo, "test", "readme.test.js"), "\"use strict\";\ntest(\"loads ./README.md\", () => {\n  expect(require(\"node:fs\").existsSync(\"README.md\")).toBe(true);\n});\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "policy, a readme and its test");
    git(repo, "checkout", "-q", "break-import");
    git(repo, "rebase", "-q", "main");
    git(repo, "checkout", "-q", "main");

    const judged = await runCli(["judge", "--repo", repo, "--base", "main", "--head", "break-import", "--data-dir", data, "--json"], 240_000);
    const verdict = parseVerdict(judged);
    expect(verdict.verdict).toBe("FAIL");
    const regression = verdict.claims.find((c) => c.name === "tests.regression");
    expect(regression?.status, failingText(verdict)).toBe("fail");
    expect(regression?.reason).toContain("test files failed to load on head: test/cli.test.js (Cannot find module '../src/cli.js' from 'test/cli.test.js')");
    expect(regression?.details).toContainEqual(expect.objectContaining({
      kind: "load-error", path: "test/cli.test.js", message: "test/cli.test.js failed to load on head: Cannot find module '../src/cli.js' from 'test/cli.test.js'",
    }));
    // The test whose title ends in a path still ran, and is no load error.
    expect(regression?.reason).not.toContain("README.md");

    const listed = await runCli(["tests", "--repo", repo, "--rev", "break-import", "--data-dir", data], 240_000);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^passed +test\/readme\.test\.js::loads \.\/README\.md$/m);
    expect(listed.stdout).toMatch(/^problem: 1 test file\(s\) failed to load on HEAD: test\/cli\.test\.js \(Cannot find module '\.\.\/src\/cli\.js' from 'test\/cli\.test\.js'\)$/m);
  }, 600_000);
});

describe("ranex init --add-deps", () => {
  it("tries what init leaves behind: HEAD with init's uncommitted package.json, never touching the index or the branch", async () => {
    const repo = await build("init-jest");
    const data = tempDir("ranex-data-");
    // A test that holds only once jest-junit is declared: red on HEAD, green in what init leaves behind.
    writeFileSync(join(repo, "test", "declared.test.js"),
      "\"use strict\";\ntest(\"jest-junit is declared\", () => {\n  expect(require(\"../package.json\").devDependencies?.[\"jest-junit\"]).toBeDefined();\n});\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "a test of package.json");
    writeFileSync(join(repo, "notes.txt"), "the owner's own staged work\n");
    git(repo, "add", "notes.txt");
    const before = { head: git(repo, "rev-parse", "HEAD"), branch: git(repo, "symbolic-ref", "HEAD"), staged: git(repo, "diff", "--cached", "--name-only") };
    // Tests may not reach the npm registry: a stand-in does to package.json what `npm install --save-dev`
    // does, and, named in the toolchain, stands in for the setup's `npm install` in the sandbox too
    // (jest and jest-junit come from this project's node_modules/.bin).
    const bin = join(tempDir("ranex-npm-"), "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "npm"), [
      "#!/usr/bin/env node",
      "const fs = require(\"node:fs\");",
      "const names = process.argv.slice(2).filter((a) => !a.startsWith(\"-\") && a !== \"install\");",
      "if (names.length === 0) process.exit(0);",
      "const pkg = JSON.parse(fs.readFileSync(\"package.json\", \"utf8\"));",
      "pkg.devDependencies = { ...pkg.devDependencies };",
      "for (const name of names) pkg.devDependencies[name] = \"*\";",
      "fs.writeFileSync(\"package.json\", JSON.stringify(pkg, null, 2) + \"\\n\");",
      "",
    ].join("\n"));
    chmodSync(join(bin, "npm"), 0o755);

    const init = await runCli(["init", "--dir", repo, "--data-dir", data, "--add-deps", "--toolchain", TOOLCHAIN, "--toolchain", bin], 240_000, { PATH: `${bin}:${process.env.PATH ?? ""}` });
    expect(init.stderr).toBe("");
    expect(init.stdout).toMatch(/adding devDependencies: npm install --save-dev jest jest-junit/);
    expect(init.stdout).toMatch(/trying the working tree with init's changes \(HEAD [0-9a-f]{12} plus package\.json, uncommitted\) in the sandbox/);
    expect(init.stdout).toMatch(/test\/declared\.test\.js {2}1 \(1 passed\)/);
    expect(init.stdout).not.toContain("failing on HEAD already");
    expect(init.code, init.stdout).toBe(0);
    // The owner's branch, HEAD and index are as they were; init's changes wait uncommitted in the tree.
    expect({ head: git(repo, "rev-parse", "HEAD"), branch: git(repo, "symbolic-ref", "HEAD"), staged: git(repo, "diff", "--cached", "--name-only") }).toEqual(before);
    expect(git(repo, "status", "--porcelain", "--", "package.json")).toBe("M package.json");
  }, 600_000);
});
