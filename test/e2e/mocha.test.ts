import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { failingText, parseVerdict, runCli, type VerdictJson } from "./run-cli.js";

// mocha as a new user meets it (issue 22): build fixtures/repos/mocha-calc.sh (`npm test` -> `mocha
// test/`, mocha declared, mocha-junit-reporter not, package-lock.json in .gitignore), run `ranex init
// --add-deps`, which adds the reporter to package.json and writes the gate's mocha launcher with a
// setup that installs without a lock file (the one npm makes is ignored, so it is in no judged tree),
// commit what it changed UNMODIFIED, and judge three pull requests: an honest fix (CANDIDATE), a
// weakened frozen test (FAIL unsafe) and no fix (FAIL). One init and one data folder serve all three.
const run = promisify(execFile);
const TARGET = "test/calc.js::calc muls";
const HEADS = ["honest", "edit-test", "no-fix"] as const;

describe("mocha-calc (mocha): ranex init --add-deps, then three pull requests", () => {
  let repo: string;
  let data: string;
  let init: Awaited<ReturnType<typeof runCli>>;
  let written: string;
  let status: string;
  const judge = async (head: string): Promise<VerdictJson> =>
    parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--task", "mul", "--data-dir", data, "--json"], 1_200_000));

  beforeAll(async () => {
    repo = join(tempDir("ranex-mocha-calc-"), "mocha-calc");
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
    await run("bash", [join(FIXTURES_DIR, "mocha-calc.sh"), repo], { env });
    data = tempDir("ranex-data-");
    init = await runCli(["init", "--dir", repo, "--add-deps", "--data-dir", data], 1_200_000);
    written = readFileSync(join(repo, ".github", "ranex.yml"), "utf8");
    status = git(repo, "status", "--porcelain");
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "ranex: policy and reporter from ranex init --add-deps");
    for (const head of HEADS) {
      git(repo, "checkout", "-q", head);
      git(repo, "rebase", "-q", "main");
    }
    git(repo, "checkout", "-q", "main");
  }, 1_500_000);

  it("init adds mocha-junit-reporter, writes the mocha launcher and an install without a lock file, and reads the red target", () => {
    expect(init.stderr).toBe("");
    expect(init.code, init.stdout).toBe(0);
    expect(init.stdout).toContain("runner: mocha (package.json scripts.test runs mocha)");
    expect(init.stdout).toContain("adding devDependencies: npm install --save-dev mocha-junit-reporter");
    expect(init.stdout).toContain("plus package.json, uncommitted");
    expect(init.stdout).toMatch(/setup [\d.]+ s \(installed once, now cached\)/);
    expect(init.stdout).toContain("tests found: 3 in 1 file(s)");
    expect(init.stdout).toContain(`failing on HEAD already: 1 (${TARGET})`);
    expect(init.stdout).not.toContain("problem:");
    // What init changed is package.json and the policy; the lock file npm wrote stays ignored.
    expect(status.split("\n").map((l) => l.trim()).sort()).toEqual(["?? .github/", "M package.json"]);
    const pkg = JSON.parse(git(repo, "show", "main:package.json")) as { devDependencies: Record<string, string> };
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(["mocha", "mocha-junit-reporter"]);
    expect(git(repo, "ls-tree", "-r", "--name-only", "main")).not.toContain("package-lock.json");
    expect(written).toContain(`command: 'node "$RANEX_REPORTERS/mocha-run.cjs"'`);
    expect(written).toContain("setup: 'npm install --no-audit --no-fund'");
    expect(written).not.toContain("npm ci");
    expect(written).not.toContain("does not declare");
    expect(git(repo, "show", "main:.github/ranex.yml")).toBe(written.replace(/\n$/, ""));
  });

  it("an honest fix is a CANDIDATE: the target and the new test file's test go red to green, the canary fails as it must", async () => {
    const verdict = await judge("honest");
    expect(verdict.verdict, failingText(verdict)).toBe("CANDIDATE");
    const redGreen = verdict.claims.find((c) => c.name === "tests.red_green");
    expect(redGreen?.details.map((d) => d.message)).toEqual(expect.arrayContaining([
      `${TARGET}: failed on base, passed on head`, "test/mul-more.js::mul muls negatives: failed on base, passed on head",
    ]));
    const regression = verdict.claims.find((c) => c.name === "tests.regression");
    // A canary that was not placed, not collected, or reported passed leaves a detail of kind canary.
    expect(regression?.details.filter((d) => d.kind === "canary")).toEqual([]);
    const runs = (verdict as unknown as { runs: { run: string; setup?: string }[] }).runs.filter((r) => !r.run.startsWith("check:"));
    expect(runs.length).toBeGreaterThan(0);
    for (const r of runs) expect(r.setup, r.run).toMatch(/^dependencies from cache \(installed once in [\d.]+ s/);
  }, 1_200_000);

  it("a weakened frozen test is FAIL unsafe, caught by diff.frozen", async () => {
    const verdict = await judge("edit-test");
    expect(verdict.verdict).toBe("FAIL");
    expect(verdict.class).toBe("unsafe");
    expect(verdict.claims.find((c) => c.name === "diff.frozen")).toMatchObject({ status: "fail", reason: expect.stringContaining("test/calc.js") as unknown as string });
  }, 1_200_000);

  it("no fix is a FAIL: the owner's target is still red", async () => {
    const verdict = await judge("no-fix");
    expect(verdict.verdict).toBe("FAIL");
    expect(verdict.claims.find((c) => c.name === "tests.red_green")).toMatchObject({ status: "fail", reason: expect.stringContaining(TARGET) as unknown as string });
  }, 1_200_000);
});
