import { describe, expect, it } from "vitest";
import { openRepository } from "../../src/workspace/index.js";
import { parseMergeTree } from "../../src/workspace/merge.js";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";

// Merge bases and merge trees over real repositories: what GitHub's "Files changed" starts from,
// and what would land if the pull request were merged now.

describe("mergeBases", () => {
  it("is the fork point of a branch behind its base, and the base itself when the head contains it", async () => {
    const repo = TestRepo.init();
    const fork = repo.commit({ "a.txt": "one\n" });
    repo.branch("pr");
    const pr = repo.commit({ "b.txt": "pr\n" });
    repo.checkout("main");
    const moved = repo.commit({ "a.txt": "two\n" });
    const opened = await openRepository(repo.dir, tempDir());
    expect(await opened.mergeBases(moved, pr)).toEqual([fork]);
    repo.checkout("pr");
    git(repo.dir, "merge", "-q", "--no-edit", "main");
    const merged = git(repo.dir, "rev-parse", "HEAD");
    const reopened = await openRepository(repo.dir, tempDir());
    expect(await reopened.mergeBases(moved, merged)).toEqual([moved]);
  });

  it("is empty for unrelated histories", async () => {
    const repo = TestRepo.init();
    const main = repo.commit({ "a.txt": "one\n" });
    git(repo.dir, "checkout", "-q", "--orphan", "other");
    const other = repo.commit({ "b.txt": "two\n" });
    const opened = await openRepository(repo.dir, tempDir());
    expect(await opened.mergeBases(main, other)).toEqual([]);
  });

  it("names every merge base of a criss-cross history", async () => {
    const repo = TestRepo.init();
    repo.commit({ "a.txt": "one\n" });
    repo.branch("side");
    const s1 = repo.commit({ "s.txt": "s1\n" });
    repo.checkout("main");
    const m1 = repo.commit({ "m.txt": "m1\n" });
    git(repo.dir, "merge", "-q", "--no-edit", s1);
    repo.commit({ "m.txt": "m2\n" });
    repo.checkout("side");
    git(repo.dir, "merge", "-q", "--no-edit", m1);
    repo.commit({ "s.txt": "s2\n" });
    const opened = await openRepository(repo.dir, tempDir());
    expect((await opened.mergeBases("main", "side")).sort()).toEqual([m1, s1].sort());
  });
});

describe("mergeTree", () => {
  it("writes the merged tree without a working copy: both sides' changes, nothing checked out", async () => {
    const repo = TestRepo.init();
    repo.commit({ "a.txt": "one\n", "b.txt": "one\n" });
    repo.branch("pr");
    repo.commit({ "b.txt": "pr\n" });
    repo.checkout("main");
    repo.commit({ "a.txt": "main\n" });
    const opened = await openRepository(repo.dir, tempDir());
    const result = await opened.mergeTree("main", "pr");
    expect(result.clean).toBe(true);
    if (!result.clean) return;
    const files = Object.fromEntries(await Promise.all((await opened.listFiles(result.tree)).map(async (f) =>
      [f.path, (await opened.readBlob(result.tree, f.path, 100))?.toString()] as const)));
    expect(files).toEqual({ "a.txt": "main\n", "b.txt": "pr\n" });
    // A tree can be written out like a commit.
    const dest = tempDir();
    await opened.materialise(result.tree, `${dest}/out`);
  });

  it("names every conflicting path, odd names included", async () => {
    const repo = TestRepo.init();
    const odd = "odd\nname.txt";
    repo.commit({ "a.txt": "one\n", [odd]: "one\n", "gone.txt": "x\n" });
    repo.branch("pr");
    repo.commit({ "a.txt": "pr\n", [odd]: "pr\n", "gone.txt": "changed\n" });
    repo.checkout("main");
    repo.commit({ "a.txt": "main\n", [odd]: "main\n", "gone.txt": null });
    const opened = await openRepository(repo.dir, tempDir());
    const result = await opened.mergeTree("main", "pr");
    expect(result).toEqual({ clean: false, conflicts: ["a.txt", "gone.txt", odd].sort() });
  });

  it("parses the messages section: a CONFLICT message names its paths", () => {
    const tree = "a".repeat(40);
    const out = [tree, "x.txt", "", "1", "x.txt", "Auto-merging", "Auto-merging x.txt\n", "2", "y.txt", "z.txt", "CONFLICT (rename/rename)", "...\n", ""].join("\0");
    expect(parseMergeTree(out)).toEqual({ tree, conflicts: ["x.txt", "y.txt", "z.txt"] });
    expect(parseMergeTree(`${tree}\0`)).toEqual({ tree, conflicts: [] });
  });
});
