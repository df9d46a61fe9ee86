import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { fixtureRepo, loadExpectations, type Expectation, type FixtureName } from "../helpers/fixtures.js";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";
import { expectAsExpected } from "../helpers/expected-verdict.js";
import pLimit from "p-limit";
import { failingText, parseVerdict, runCli, type CliResult, type VerdictJson } from "./run-cli.js";

// End to end: the real CLI (`node bin/ranex.js judge ... --json`) against the bundled example
// repositories, every branch of fixtures/repos/expected.json, plus the ways judging can go wrong.
// The judgments of one repository share a data dir, as they would on a server (base cache, journal).

const expectations = loadExpectations();
const slot = pLimit(Number(process.env.RANEX_E2E_CONCURRENCY ?? 2));
const judgments = new Map<string, Promise<CliResult>>();
// Started first so its timeout overlaps the other judgments instead of trailing them.
const SLOW_FIRST = ["hang"];

function judgeArgs(repo: string, dataDir: string, head: string, task?: string, base = "main"): string[] {
  return ["judge", "--repo", repo, "--base", base, "--head", head, ...(task ? ["--task", task] : []), "--json", "--data-dir", dataDir];
}

const dataDirs = new Map<FixtureName, string>();

/** The judgment of one example branch, started on first request and shared by every test after. */
function judgmentOf(repoName: FixtureName, branch: string): Promise<CliResult> {
  const key = `${repoName}@${branch}`;
  let judgment = judgments.get(key);
  if (judgment === undefined) {
    const dataDir = dataDirs.get(repoName) ?? tempDir("ranex-e2e-data-");
    dataDirs.set(repoName, dataDir);
    const want = expectations[repoName][branch];
    judgment = fixtureRepo(repoName).then((repo) => slot(() => runCli(judgeArgs(repo, dataDir, branch, want?.task, want?.base))));
    judgments.set(key, judgment);
  }
  return judgment;
}

/** The digest the subject must carry for the policy: sha256 of the blob's bytes on the base. */
function policyDigest(repo: string, base = "main"): string {
  const blob = execFileSync("git", ["-C", repo, "cat-file", "blob", `${base}:.github/ranex.yml`]);
  return `sha256:${createHash("sha256").update(blob).digest("hex")}`;
}

function claimNamed(verdict: VerdictJson, name: string) {
  const claim = verdict.claims.find((c) => c.name === name);
  if (claim === undefined) throw new Error(`the verdict has no claim ${name}; it has ${verdict.claims.map((c) => c.name).join(", ")}`);
  return claim;
}

function expectJudged(result: CliResult, verdict: VerdictJson, want: Expectation): void {
  const stderr = `\nstderr: ${result.stderr.slice(0, 500)}`;
  expectAsExpected(verdict, want, stderr);
  expect(result.code, `verdict ${verdict.verdict}${stderr}`).toBe(want.verdict === "CANDIDATE" ? 0 : 1);
}

// The rows of the examples a suite of their own judges in process, each head held to its row there
// too (test/helpers/expected-verdict.ts): judging them through the CLI again only doubled CI's time.
// The CLI itself is exercised by the two repositories below and by the failure cases.
const JUDGED_IN_PROCESS: Partial<Record<FixtureName, string>> = {
  "python-src": "test/judge/loading.test.ts",
  "node-src": "test/judge/loading.test.ts",
  "python-provenance": "test/judge/provenance.test.ts",
  "node-provenance": "test/judge/provenance.test.ts",
  "python-helpers": "test/judge/test-helpers.test.ts",
  "node-helpers": "test/judge/test-helpers.test.ts",
  "node-esm-helpers": "test/judge/test-helpers.test.ts",
  "python-data": "test/judge/frozen-data.test.ts",
  "node-data": "test/judge/frozen-data.test.ts",
};

describe("every example branch is judged somewhere", () => {
  it("each row left to an in-process suite is named by that suite", () => {
    const unjudged = Object.entries(JUDGED_IN_PROCESS).flatMap(([repoName, suite]) => {
      const text = readFileSync(join(import.meta.dirname, "..", "..", suite), "utf8");
      const heads = Object.keys(expectations[repoName as FixtureName]);
      return heads.filter((head) => !text.includes(`"${head}"`)).map((head) => `${repoName}@${head} (${suite})`);
    });
    expect(unjudged).toEqual([]);
  });
});

for (const [repoName, heads] of Object.entries(expectations) as [FixtureName, Record<string, Expectation>][]) {
  if (JUDGED_IN_PROCESS[repoName] !== undefined) continue;
  describe(`${repoName}: every example branch gets its expected verdict`, () => {
    let repo = "";
    beforeAll(async () => {
      repo = await fixtureRepo(repoName);
      // Start every judgment now, at most two at a time, the slow ones first; each test awaits its own.
      const order = Object.keys(heads).sort((a, b) => Number(SLOW_FIRST.includes(b)) - Number(SLOW_FIRST.includes(a)));
      for (const branch of order) void judgmentOf(repoName, branch);
    }, 60_000);

    for (const [branch, want] of Object.entries(heads)) {
      const label = want.verdict === "CANDIDATE" ? "CANDIDATE" : `FAIL by ${want.fails.join(", ")}`;
      it(`${branch}${want.task ? ` (task ${want.task})` : ""} -> ${label}`, async () => {
        const result = await judgmentOf(repoName, branch);
        const verdict = parseVerdict(result);
        expectJudged(result, verdict, want);
        // The subject names exactly what was judged, and the policy is the base's, byte for byte.
        expect(verdict.subject.base).toBe(git(repo, "rev-parse", want.base ?? "main"));
        expect(verdict.subject.mergeBase).toBe(git(repo, "merge-base", want.base ?? "main", branch));
        expect(verdict.subject.head).toBe(git(repo, "rev-parse", branch));
        expect(verdict.subject.task).toBe(want.task ?? null);
        expect(verdict.subject.policy).toBe(policyDigest(repo, want.base ?? "main"));
      }, 240_000);
    }
  });
}

describe("python-calc: the policy comes from the base", () => {
  it("a head that rewrites .github/ranex.yml is judged by the base's policy and fails diff.frozen", async () => {
    const verdict = parseVerdict(await judgmentOf("python-calc", "edit-policy"));
    // The head's policy would allow every path and require only diff.safety; the base's does not.
    expect(claimNamed(verdict, "diff.frozen").status).toBe("fail");
    expect(claimNamed(verdict, "diff.scope").status).toBe("fail");
    expect(claimNamed(verdict, "check:no-todo").status).not.toBe("missing");
    const honest = parseVerdict(await judgmentOf("python-calc", "honest"));
    expect(verdict.subject.policy).toBe(honest.subject.policy);
  }, 240_000);
});

describe("python-calc: a base that moved on is judged by what would land (issue 12)", () => {
  const tree = (repo: string, rev: string): string => git(repo, "rev-parse", `${rev}^{tree}`);

  it("a head behind its base: the diff starts at the merge base, the tests measure the merge", async () => {
    const repo = await fixtureRepo("python-calc");
    const verdict = parseVerdict(await judgmentOf("python-calc", "behind"));
    expect(verdict.subject.mergeBase).toBe(git(repo, "rev-parse", "main"));
    expect(verdict.subject.mergeBase).not.toBe(verdict.subject.base);
    const merged = git(repo, "merge-tree", "--write-tree", "main-moved", "behind");
    expect(verdict.subject.mergedTree).toBe(merged);
    expect([verdict.subject.baseTree, verdict.subject.headTree]).not.toContain(merged);
    // main-moved's own changes (a test, the README, stats.py) are not the pull request's.
    expect(failingText(verdict)).not.toContain("README.md");
    expect(claimNamed(verdict, "diff.scope").reason).toContain("1 changed path");
    // What main-moved has that the head has not, for the reviewer's brief (issue 13), on the claim that measured the merge.
    expect(claimNamed(verdict, "tests.regression").details.filter((d) => d.kind === "base-ahead")).toEqual([{
      kind: "base-ahead",
      message: `on the base tip, not in the head: ${verdict.subject.base.slice(0, 7)} stats: total; a test of sub; README (changes src/calc.py, README.md, src/stats.py, tests/test_calc.py, tests/test_stats.py; the pull request changes src/calc.py too)`,
    }]);
  }, 240_000);

  it("a head that merged the base in: only its own change is judged, and the head tree is what lands", async () => {
    const repo = await fixtureRepo("python-calc");
    const verdict = parseVerdict(await judgmentOf("python-calc", "merged-base"));
    expect(verdict.subject.mergeBase).toBe(verdict.subject.base);
    expect(verdict.subject.mergedTree).toBe(tree(repo, "merged-base"));
    expect(claimNamed(verdict, "diff.frozen").reason).toContain("2 changed paths");
    expect(verdict.claims.flatMap((c) => c.details).filter((d) => d.kind?.startsWith("base-"))).toEqual([
      { kind: "base-contained", message: `head ${verdict.subject.head.slice(0, 7)} contains base tip ${verdict.subject.base.slice(0, 7)}: the base has no commit the head lacks` },
    ]);
    // The same change as `behind`, merged the other way: the very same tree is measured.
    const behind = parseVerdict(await judgmentOf("python-calc", "behind"));
    expect(verdict.subject.mergedTree).toBe(behind.subject.mergedTree);
  }, 240_000);

  it("a textual conflict records no merged tree and names the path", async () => {
    const verdict = parseVerdict(await judgmentOf("python-calc", "text-conflict"));
    expect(verdict.subject.mergedTree).toBeNull();
    const regression = claimNamed(verdict, "tests.regression");
    expect(regression.details.map((d) => d.path)).toContain("src/calc.py");
    // The diff claims still judge the change itself.
    expect(claimNamed(verdict, "diff.frozen").status).toBe("pass");
  }, 240_000);

  it("--exact-base keeps the two-tree judgment: the base's own new work reads as the head undoing it", async () => {
    const repo = await fixtureRepo("python-calc");
    const result = await slot(() => runCli([...judgeArgs(repo, tempDir("ranex-e2e-data-"), "behind", "mul", "main-moved"), "--exact-base"]));
    const verdict = parseVerdict(result);
    expect(result.code).toBe(1);
    expect(verdict.verdict).toBe("FAIL");
    expect(verdict.class).toBe("unsafe");
    expect(verdict.subject.mergeBase).toBe(verdict.subject.base);
    expect(verdict.subject.mergedTree).toBe(verdict.subject.headTree);
    expect(claimNamed(verdict, "diff.frozen").reason).toContain("tests/test_calc.py");
    expect(claimNamed(verdict, "diff.scope").reason).toContain("README.md");
    // The default judgment of the same head has another subject: evidence never crosses over.
    const merged = parseVerdict(await judgmentOf("python-calc", "behind"));
    expect(merged.subject.digest).not.toBe(verdict.subject.digest);
  }, 240_000);

  it("exits 2 for a head that shares no history with the base, and --exact-base judges the two trees", async () => {
    const repo = TestRepo.init();
    repo.commit({ ".github/ranex.yml": "version: 1\ntests:\n  command: \"true\"\nrequire: [diff.safety]\n", "src/app.py": "x = 1\n" });
    git(repo.dir, "checkout", "-q", "--orphan", "orphan");
    repo.commit({ "src/app.py": "x = 2\n" });
    const dataDir = tempDir("ranex-e2e-data-");
    const unrelated = await runCli(["judge", "--repo", repo.dir, "--base", "main", "--head", "orphan", "--json", "--data-dir", dataDir]);
    expect(unrelated.code, unrelated.stderr).toBe(2);
    expect(unrelated.stdout).toBe("");
    expect(unrelated.stderr).toContain("share no history");
    const exact = await runCli(["judge", "--repo", repo.dir, "--base", "main", "--head", "orphan", "--exact-base", "--json", "--data-dir", dataDir]);
    expect(exact.code, exact.stderr).toBe(0);
    expect(parseVerdict(exact).verdict).toBe("CANDIDATE");
  }, 120_000);
});

describe("ranex judge fails closed", () => {
  function expectOneLineError(result: CliResult): void {
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]?.trim()).not.toBe("");
  }

  it("exits 2 with one line on stderr for missing or unknown arguments", async () => {
    const repo = await fixtureRepo("python-calc");
    const missing = await runCli(["judge", "--repo", repo, "--head", "honest", "--json"]);
    expectOneLineError(missing);
    expect(missing.stderr).toContain("--base");
    const unknown = await runCli(["judge", "--repo", repo, "--base", "main", "--head", "honest", "--bogus"]);
    expectOneLineError(unknown);
    expect(unknown.stderr).toContain("bogus");
  });

  it("exits 2 for a path that is not a git repository", async () => {
    const notARepo = tempDir("ranex-not-a-repo-");
    const result = await runCli(judgeArgs(notARepo, tempDir("ranex-e2e-data-"), "main"));
    expectOneLineError(result);
    expect(result.stderr).toContain(notARepo);
  });

  it("exits 2 for a revision the repository does not have, naming it", async () => {
    const repo = await fixtureRepo("python-calc");
    const result = await runCli(judgeArgs(repo, tempDir("ranex-e2e-data-"), "no-such-branch"));
    expectOneLineError(result);
    expect(result.stderr).toContain("no-such-branch");
  });

  it("FAILs a base without .github/ranex.yml, naming the base commit", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "src/app.py": "x = 1\n" });
    repo.commit({ "src/app.py": "x = 2\n" });
    const result = await runCli(["judge", "--repo", repo.dir, "--base", base, "--head", "main", "--json", "--data-dir", tempDir("ranex-e2e-data-")]);
    const verdict = parseVerdict(result);
    expect(result.code).toBe(1);
    expect(verdict.verdict).toBe("FAIL");
    // The commit may be named by a prefix of its sha, but by one that is this base's.
    const named = /no \.github\/ranex\.yml on ([0-9a-f]{7,40})/.exec(failingText(verdict));
    expect(named, failingText(verdict)).not.toBeNull();
    expect(base.startsWith(named?.[1] ?? "-")).toBe(true);
  }, 60_000);

  it("FAILs an invalid policy on the base, naming the key and its line", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({
      ".github/ranex.yml": 'version: 1\ntests:\n  command: "true"\n  timeout: soon\n',
      "src/app.py": "x = 1\n",
    });
    repo.commit({ "src/app.py": "x = 2\n" });
    const result = await runCli(["judge", "--repo", repo.dir, "--base", base, "--head", "main", "--json", "--data-dir", tempDir("ranex-e2e-data-")]);
    const verdict = parseVerdict(result);
    expect(result.code).toBe(1);
    expect(verdict.verdict).toBe("FAIL");
    expect(failingText(verdict)).toContain("tests.timeout");
    expect(failingText(verdict)).toMatch(/line 4\b|ranex\.yml:4\b/);
  }, 60_000);

  it("FAILs a task the base does not define, naming it", async () => {
    const repo = await fixtureRepo("python-calc");
    const result = await runCli(judgeArgs(repo, tempDir("ranex-e2e-data-"), "honest", "no-such-task"));
    const verdict = parseVerdict(result);
    expect(result.code).toBe(1);
    expect(verdict.verdict).toBe("FAIL");
    expect(failingText(verdict)).toContain("no-such-task");
  }, 120_000);

  it("FAILs a head that is the base itself: no change to judge", async () => {
    const repo = await fixtureRepo("python-calc");
    const result = await runCli(judgeArgs(repo, tempDir("ranex-e2e-data-"), "main"));
    const verdict = parseVerdict(result);
    expect(result.code).toBe(1);
    expect(verdict.verdict).toBe("FAIL");
    expect(failingText(verdict)).toContain("no change to judge");
  }, 120_000);
});
