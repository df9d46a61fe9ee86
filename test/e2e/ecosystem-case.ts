import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { failingText, parseVerdict, runCli, type VerdictJson } from "./run-cli.js";

// Go, Rust (cargo test and nextest), Maven, Gradle, mocha and the TAP runners (tape, ava, node-tap) as
// a new user meets them (issue 22), one test file per ecosystem (ecosystem-*.test.ts, mocha.test.ts,
// tap.test.ts, ava.test.ts, node-tap.test.ts): build the fixture repository, run `ranex
// init` (which finds the toolchain, fills the dependency cache from the registry in its try, and
// writes the policy), commit what it wrote UNMODIFIED, and judge three pull requests: an honest fix
// (CANDIDATE), a weakened frozen test (FAIL unsafe) and no fix (FAIL). One init and one data folder
// per ecosystem serve its three judgments: the dependencies are fetched once, as in production.
const run = promisify(execFile);

/** What `ranex init` left behind, before it is committed: what it printed, the policy it wrote, `git status`'s lines, its data folder. */
export interface InitSeen { repo: string; stdout: string; written: string; status: string[]; data: string }

/** One ecosystem's fixture: its runner, the owner's red target, a frozen test file, the honest head's new test. */
export interface EcosystemCase {
  name: string; runner: string; target: string; frozen: string; newTest: string;
  /** More flags for `ranex init` (`--add-deps`), and the files besides the policy it changes, committed with it. */
  initArgs?: string[]; initChanges?: string[];
  /** The ecosystem's own expectations of what init printed and wrote. */
  initSaw?: (seen: InitSeen) => void;
  /**
   * Heads that change what builds or runs the tests, or what they compare with, rather than a test
   * (issues 19 and 22): each must be FAIL unsafe, its diff.frozen reason (or, `by` another claim,
   * the failing claims' text) naming every string given.
   */
  attacks?: { head: string; what: string; mentions: string[]; by?: string }[];
  /** The runner selects tests: the honest head's repeats (tests.stable) must not lose their selection. */
  selects?: boolean;
  /** The honest head's new test file: the PR's own runs (head+new, base+new) run it alone (issue 22). */
  ownFile?: string;
  /** More tests of the ecosystem on the same init (after the policy is committed, the heads replayed on it). */
  more?: (seen: () => InitSeen) => void;
}

async function build(name: string): Promise<string> {
  const dir = join(tempDir(`ranex-${name}-`), name);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  await run("bash", [join(FIXTURES_DIR, `${name}.sh`), dir], { env });
  return dir;
}

/** Commits init's policy on main and replays every head on top of it, as PRs opened after it. */
function commitPolicy(repo: string, heads: readonly string[], changes: readonly string[]): void {
  git(repo, "add", ".github/ranex.yml", ...changes);
  git(repo, "commit", "-q", "-m", "ranex: policy from ranex init");
  for (const head of heads) {
    git(repo, "checkout", "-q", head);
    git(repo, "rebase", "-q", "main");
  }
  git(repo, "checkout", "-q", "main");
}

const HEADS = ["honest", "edit-test", "no-fix"] as const;

/** The four tests of one ecosystem; each ecosystem has a test file of its own, so the workers share them. */
export function judgedAsNewUser({ name, runner, target, frozen, newTest, initArgs = [], initChanges = [], initSaw, attacks = [], selects = false, ownFile, more }: EcosystemCase): void {
  describe(`${name}: ranex init, then three pull requests`, () => {
    let repo: string;
    let data: string;
    let init: Awaited<ReturnType<typeof runCli>>;
    let written: string;
    let status: string[];
    const judge = async (head: string): Promise<VerdictJson> =>
      parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--task", "mul", "--data-dir", data, "--json"], 1_200_000));

    beforeAll(async () => {
      repo = await build(name);
      data = tempDir("ranex-data-");
      init = await runCli(["init", "--dir", repo, ...initArgs, "--data-dir", data], 1_200_000);
      written = readFileSync(join(repo, ".github", "ranex.yml"), "utf8");
      status = git(repo, "status", "--porcelain").split("\n").map((l) => l.trim()).filter((l) => l !== "").sort();
      commitPolicy(repo, [...HEADS, ...attacks.map((a) => a.head)], initChanges);
    }, 1_500_000);

    it("init finds the runner, fills the dependency cache in its try, and reads the owner's red target", () => {
      expect(init.stderr).toBe("");
      expect(init.code, init.stdout).toBe(0);
      expect(init.stdout).toContain(`runner: ${runner} (`);
      expect(init.stdout).toMatch(/setup [\d.]+ s \(installed once, now cached\)/);
      expect(init.stdout).toContain(`failing on HEAD already: 1 (${target})`);
      // The policy judged below is the one init wrote, byte for byte.
      expect(git(repo, "show", "main:.github/ranex.yml")).toBe(written.replace(/\n$/, ""));
      expect(written).toContain("setup_network: true");
      initSaw?.({ repo, stdout: init.stdout, written, status, data });
    });

    it("an honest fix is a CANDIDATE, its runs using the cached dependencies and the canary failing as it must", async () => {
      const verdict = await judge("honest");
      expect(verdict.verdict, failingText(verdict)).toBe("CANDIDATE");
      const redGreen = verdict.claims.find((c) => c.name === "tests.red_green");
      expect(redGreen?.details.map((d) => d.message)).toEqual(expect.arrayContaining([`${target}: failed on base, passed on head`, `${newTest}: failed on base, passed on head`]));
      const regression = verdict.claims.find((c) => c.name === "tests.regression");
      // A canary that was not placed, not collected, or reported passed leaves a detail of kind canary.
      expect(regression?.details.filter((d) => d.kind === "canary")).toEqual([]);
      const runs = (verdict as unknown as { runs: { run: string; setup?: string; report: string | null }[] }).runs.filter((r) => !r.run.startsWith("check:"));
      for (const r of runs) expect(r.setup, r.run).toMatch(/^dependencies from cache \(installed once in [\d.]+ s/);
      if (ownFile !== undefined) {
        for (const own of ["head+new", "base+new"]) expect(runs.find((r) => r.run === own)?.report, own).toBe(`1 test case; selected for the PR's new test files: ${ownFile}`);
      }
      // A selection that did not take effect would say so here (the repeats then ran the whole suite).
      if (selects) expect(verdict.claims.find((c) => c.name === "tests.stable")?.details.filter((d) => d.kind === "selection-lost")).toEqual([]);
    }, 1_200_000);

    it("a weakened frozen test is FAIL unsafe, caught by diff.frozen", async () => {
      const verdict = await judge("edit-test");
      expect(verdict.verdict).toBe("FAIL");
      expect(verdict.class).toBe("unsafe");
      expect(verdict.claims.find((c) => c.name === "diff.frozen")).toMatchObject({ status: "fail", reason: expect.stringContaining(frozen) as unknown as string });
    }, 1_200_000);

    for (const attack of attacks) {
      it(`${attack.head} (${attack.what}) is FAIL unsafe, caught by ${attack.by ?? "diff.frozen"}`, async () => {
        const verdict = await judge(attack.head);
        expect(verdict.verdict, failingText(verdict)).toBe("FAIL");
        expect(verdict.class).toBe("unsafe");
        const reason = verdict.claims.find((c) => c.name === "diff.frozen" && c.status === "fail")?.reason ?? failingText(verdict);
        for (const mention of attack.mentions) expect(reason).toContain(mention);
      }, 1_200_000);
    }

    it("no fix is a FAIL: the owner's target is still red", async () => {
      const verdict = await judge("no-fix");
      expect(verdict.verdict).toBe("FAIL");
      expect(verdict.claims.find((c) => c.name === "tests.red_green")).toMatchObject({ status: "fail", reason: expect.stringContaining(target) as unknown as string });
    }, 1_200_000);

    more?.(() => ({ repo, stdout: init.stdout, written, status, data }));
  });
}
