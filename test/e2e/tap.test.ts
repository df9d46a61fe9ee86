import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { failingText, parseVerdict, runCli, type VerdictJson } from "./run-cli.js";

// tape, which writes TAP, as a new user meets it (issue 22): build fixtures/repos/tap-calc.sh (`npm
// test` -> `npm run test:unit` -> `tape test/*.js`, tape from the npm registry), run `ranex init`,
// which writes the gate's TAP launcher command and installs tape in its try, commit what it wrote
// UNMODIFIED, and judge three pull requests: an honest fix (CANDIDATE), a weakened frozen test
// (FAIL unsafe) and no fix (FAIL). One init and one data folder serve all three.
const run = promisify(execFile);
const TARGET = "test/calc.js::muls";
const HEADS = ["honest", "edit-test", "no-fix"] as const;

describe("tap-calc (tape): ranex init, then three pull requests", () => {
  let repo: string;
  let data: string;
  let init: Awaited<ReturnType<typeof runCli>>;
  let written: string;
  const judge = async (head: string): Promise<VerdictJson> =>
    parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--task", "mul", "--data-dir", data, "--json"], 1_200_000));

  beforeAll(async () => {
    repo = join(tempDir("ranex-tap-calc-"), "tap-calc");
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
    await run("bash", [join(FIXTURES_DIR, "tap-calc.sh"), repo], { env });
    data = tempDir("ranex-data-");
    init = await runCli(["init", "--dir", repo, "--data-dir", data], 1_200_000);
    written = readFileSync(join(repo, ".github", "ranex.yml"), "utf8");
    git(repo, "add", ".github/ranex.yml");
    git(repo, "commit", "-q", "-m", "ranex: policy from ranex init");
    for (const head of HEADS) {
      git(repo, "checkout", "-q", head);
      git(repo, "rebase", "-q", "main");
    }
    git(repo, "checkout", "-q", "main");
  }, 1_500_000);

  it("init follows npm run test:unit to tape, writes the TAP launcher, installs tape in its try and reads the red target", () => {
    expect(init.stderr).toBe("");
    expect(init.code, init.stdout).toBe(0);
    expect(init.stdout).toContain("runner: tape (package.json scripts.test runs tape (through npm run test:unit))");
    expect(init.stdout).toMatch(/setup [\d.]+ s \(installed once, now cached\)/);
    expect(init.stdout).toContain("tests found: 3 in 1 file(s)");
    expect(init.stdout).toContain(`failing on HEAD already: 1 (${TARGET})`);
    expect(written).toContain(`command: 'node "$RANEX_REPORTERS/tap-run.cjs" tape ''test/*.js'''`);
    expect(written).toContain("must write its TAP report to $RANEX_REPORT");
    expect(written).not.toContain("cannot read");
    expect(git(repo, "show", "main:.github/ranex.yml")).toBe(written.replace(/\n$/, ""));
  });

  it("an honest fix is a CANDIDATE: the target and the new test file's test go red to green, the canary fails as it must", async () => {
    const verdict = await judge("honest");
    expect(verdict.verdict, failingText(verdict)).toBe("CANDIDATE");
    const redGreen = verdict.claims.find((c) => c.name === "tests.red_green");
    expect(redGreen?.details.map((d) => d.message)).toEqual(expect.arrayContaining([
      `${TARGET}: failed on base, passed on head`, "test/mul-more.js::muls negatives: failed on base, passed on head",
    ]));
    const regression = verdict.claims.find((c) => c.name === "tests.regression");
    // A canary that was not placed, not collected, or reported passed leaves a detail of kind canary.
    expect(regression?.details.filter((d) => d.kind === "canary")).toEqual([]);
    const runs = (verdict as unknown as { runs: { run: string; setup?: string }[] }).runs.filter((r) => !r.run.startsWith("check:"));
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
