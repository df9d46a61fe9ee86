import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { fixtureRepo } from "../helpers/fixtures.js";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";

// A verdict already decided stops spending (issue 21): a head that hangs at import times out in its
// first run, which fails tests.regression; the repeats tests.stable wants and the mutants diff.needed
// wants would each wait out the same timeout again, and none could change the verdict. So none is
// started, and the two claims say why instead of passing on runs never made.

const TIMEOUT_S = 4;

async function hangingHead(): Promise<string> {
  const clone = join(tempDir("ranex-decided-"), "repo");
  git(tempDir(), "clone", "-q", await fixtureRepo("python-calc"), clone);
  const repo = new TestRepo(clone);
  // main-strict requires tests.stable (3 runs a side) and diff.needed; its timeout made short here.
  repo.branch("quick", "origin/main-strict");
  const policy = readFileSync(join(clone, ".github", "ranex.yml"), "utf8");
  expect(policy).toMatch(/tests\.stable, diff\.needed/);
  repo.commit({ ".github/ranex.yml": policy.replace(/^ {2}timeout: 20$/m, `  timeout: ${TIMEOUT_S}`) }, "policy: short test timeout");
  repo.branch("hang-import", "quick");
  const calc = readFileSync(join(clone, "src", "calc.py"), "utf8");
  repo.commit({ "src/calc.py": `while True:\n    pass\n\n${calc.replace("raise NotImplementedError(\"div: see .ranex/tasks/div.yml\")", "return a / b")}` }, "calc: div");
  return clone;
}

describe("a decided verdict", () => {
  it("starts no repeat and no mutant after the head timed out", async () => {
    const source = await hangingHead();
    const judgment = await judge({ source, base: "quick", head: "hang-import", task: "div", dataDir: tempDir() });
    const claim = (name: string) => judgment.verdict.claims.find((c) => c.name === name);
    expect(judgment.verdict.verdict).toBe("FAIL");
    expect(claim("tests.regression")?.status).toBe("fail");
    // The runs recorded: the head's one run, timed out; no stage of repeats or mutants was entered.
    const runs = judgment.verdict.claims.flatMap((c) => c.runs ?? []);
    const headRuns = new Set(runs.filter((r) => r.run === "head").map((r) => JSON.stringify(r)));
    expect(headRuns.size).toBe(1);
    expect([...headRuns].map((r) => (JSON.parse(r) as { timedOut: boolean }).timedOut)).toEqual([true]);
    expect(Object.keys(judgment.timings).filter((stage) => /^(repeats|mutants)(?!-prepare)/.test(stage))).toEqual([]);
    for (const name of ["tests.stable", "diff.needed"]) {
      expect(claim(name)?.status).toBe("missing");
      expect(claim(name)?.reason).toMatch(/^not measured: the head run timed out after \d+ s, so tests\.regression fails whatever a repeat or mutant shows$/);
    }
  }, 240_000);

  it("stops the early repeats beside a hanging head too, once the head run timed out", async () => {
    const source = await hangingHead();
    const request = { source, base: "quick", head: "hang-import", task: "div", dataDir: tempDir() };
    await judge(request);
    // Warm: the base comes from the cache, so the target's repeats start beside the head run, and the
    // head's copy hangs as well. Its second repeat is never started, nor any repeat after the main runs.
    const warm = await judge(request);
    expect(warm.timings["base-cached"]).toBe(0);
    expect(Object.keys(warm.timings).filter((stage) => /^(repeats|mutants)(?!-prepare|-early)/.test(stage))).toEqual([]);
    expect(warm.verdict.claims.find((c) => c.name === "tests.stable")?.reason).toMatch(/^not measured: the head run timed out/);
  }, 240_000);
});
