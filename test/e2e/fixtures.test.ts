import { execFile } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { CHANGE_CLAIM, isKnownClaim } from "../../src/kernel/claims.js";
import { FIXTURES_DIR, fixtureRepo, loadExpectations, type FixtureName } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";

// The example repositories themselves, without the judge: every expectation names a branch that
// exists, every branch has an expectation, the scripts are deterministic, and the attacks are real.

const run = promisify(execFile);
const expectations = loadExpectations();
const names = Object.keys(expectations) as FixtureName[];
const GITHUB_TOKEN = /gh[pousr]_[A-Za-z0-9_]{36}/;

function branches(repo: string): string[] {
  return git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").split("\n").sort();
}

describe.each(names)("fixture %s", (name) => {
  it("has exactly the branches expected.json lists, plus main and the bases it names", async () => {
    const repo = await fixtureRepo(name);
    const bases = Object.values(expectations[name]).flatMap((want) => (want.base === undefined ? [] : [want.base]));
    expect(branches(repo)).toEqual([...new Set(["main", ...bases, ...Object.keys(expectations[name])])].sort());
  });

  it("builds every head as one commit on top of main, each with its own tree", async () => {
    const repo = await fixtureRepo(name);
    const main = git(repo, "rev-parse", "main");
    for (const [branch, want] of Object.entries(expectations[name])) {
      if (want.base === undefined) {
        expect(git(repo, "rev-parse", `${branch}^`), branch).toBe(main);
      } else {
        // A head of a moved base left main before the base moved on (one commit later): its merge
        // base with that base is main, unless it merged the base in.
        expect(git(repo, "rev-parse", `${want.base}^`), want.base).toBe(main);
        const own = git(repo, "rev-list", "--max-count=1", "--no-merges", "--first-parent", branch);
        expect(git(repo, "rev-parse", `${own}^`), branch).toBe(main);
      }
      const sameTree = git(repo, "rev-parse", `${branch}^{tree}`) === git(repo, "rev-parse", `${want.base ?? "main"}^{tree}`);
      // Only a head that expects "no change to judge" may leave the tree alone.
      expect(sameTree, branch).toBe(want.fails.includes(CHANGE_CLAIM));
    }
  });

  it("is deterministic: a second build has the same shas", async () => {
    const again = join(tempDir("ranex-fixture-again-"), name);
    await run("bash", [join(FIXTURES_DIR, `${name}.sh`), again]);
    expect(git(again, "show-ref")).toBe(git(await fixtureRepo(name), "show-ref"));
  });

  it("names only claims the judge knows in expected.json", () => {
    for (const [branch, want] of Object.entries(expectations[name])) {
      for (const claim of want.fails) expect(isKnownClaim(claim) || claim === CHANGE_CLAIM, `${branch}: ${claim}`).toBe(true);
      expect(want.verdict === "CANDIDATE", branch).toBe(want.fails.length === 0);
    }
  });
});

describe("fixture scripts", () => {
  it("refuse to build over a directory that is not empty", async () => {
    const dir = tempDir("ranex-fixture-full-");
    writeFileSync(join(dir, "keep.txt"), "mine\n");
    await expect(run("bash", [join(FIXTURES_DIR, "python-calc.sh"), dir])).rejects.toMatchObject({ code: 2 });
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
  });

  it("hold no literal credential, while the secret head does commit one", async () => {
    for (const file of readdirSync(FIXTURES_DIR)) {
      expect(readFileSync(join(FIXTURES_DIR, file), "utf8"), file).not.toMatch(GITHUB_TOKEN);
    }
    const repo = await fixtureRepo("python-calc");
    expect(git(repo, "show", "secret:src/settings.py")).toMatch(GITHUB_TOKEN);
  });
});
