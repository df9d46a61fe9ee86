import { describe, expect, it } from "vitest";
import { openRepository } from "../../src/workspace/index.js";
import { parseLog } from "../../src/workspace/history.js";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";

// What the base tip has that the head has not, read from real repositories: the reviewer's brief
// lists it (issue 13).

describe("commitsAhead", () => {
  it("lists the base's commits the head lacks, newest first, with subject and paths; a merge lists what it brought", async () => {
    const repo = TestRepo.init();
    repo.commit({ "a.txt": "one\n" }, "start");
    repo.branch("pr");
    const pr = repo.commit({ "b.txt": "pr\n" }, "the pull request");
    repo.checkout("main");
    repo.branch("side");
    const side = repo.commit({ "weird\nname.txt": "s\n", "dir/c.txt": "c\n" }, "side work");
    repo.checkout("main");
    const first = repo.commit({ "a.txt": "two\n" }, "edit a: <b>bold</b> & \"quoted\"");
    git(repo.dir, "merge", "-q", "--no-ff", "-m", "Merge side", "side");
    const merge = git(repo.dir, "rev-parse", "HEAD");
    const empty = repo.commit({}, "an empty commit");
    const opened = await openRepository(repo.dir, tempDir());

    const ahead = await opened.commitsAhead("main", pr, 10);
    expect(ahead.total).toBe(4);
    expect(ahead.commits.slice(0, 2)).toEqual([
      { sha: empty, subject: "an empty commit", paths: [] },
      { sha: merge, subject: "Merge side", paths: ["dir/c.txt", "weird\nname.txt"] },
    ]);
    // The merge's two parents have the same date: either may come first.
    expect(ahead.commits.slice(2)).toEqual(expect.arrayContaining([
      { sha: side, subject: "side work", paths: ["dir/c.txt", "weird\nname.txt"] },
      { sha: first, subject: "edit a: <b>bold</b> & \"quoted\"", paths: ["a.txt"] },
    ]));

    const capped = await opened.commitsAhead("main", pr, 2);
    expect(capped.total).toBe(4);
    expect(capped.commits.map((c) => c.sha)).toEqual([empty, merge]);
  });

  it("is empty when the head contains the tip: up to date, or the tip itself", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "a.txt": "one\n" });
    repo.branch("pr");
    const head = repo.commit({ "b.txt": "pr\n" });
    const opened = await openRepository(repo.dir, tempDir());
    expect(await opened.commitsAhead(base, head, 20)).toEqual({ total: 0, commits: [] });
    expect(await opened.commitsAhead(base, base, 20)).toEqual({ total: 0, commits: [] });
  });

  it("counts every commit of an unrelated history", async () => {
    const repo = TestRepo.init();
    repo.commit({ "a.txt": "one\n" });
    const main = repo.commit({ "a.txt": "two\n" });
    git(repo.dir, "checkout", "-q", "--orphan", "other");
    const other = repo.commit({ "b.txt": "x\n" });
    const opened = await openRepository(repo.dir, tempDir());
    expect((await opened.commitsAhead(main, other, 1)).total).toBe(2);
  });
});

describe("parseLog", () => {
  it("reads a commit without paths, an empty subject, and a path named like a sha", () => {
    const a = "a".repeat(40);
    const b = "b".repeat(40);
    const out = `\0${a}\0\0\n${b}\0x\0\0${b}\0subject\0`;
    expect(parseLog(out)).toEqual([{ sha: a, subject: "", paths: [b, "x"] }, { sha: b, subject: "subject", paths: [] }]);
    expect(parseLog("")).toEqual([]);
    expect(() => parseLog("nonsense\0x\0y\0")).toThrow(/unexpected git log output/);
  });
});
