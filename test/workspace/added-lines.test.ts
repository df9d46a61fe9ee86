import { describe, expect, it } from "vitest";
import { openRepository, type AddedLines } from "../../src/workspace/index.js";
import { tempDir, TestRepo } from "../helpers/git-repo.js";
import { commitGitlink } from "./craft.js";

function forPath(result: AddedLines[], path: string): AddedLines {
  const found = result.find((r) => r.path === path);
  if (!found) throw new Error(`no entry for ${JSON.stringify(path)}`);
  return found;
}

describe("added lines", () => {
  it("reconstructs added lines with head line numbers and no '+' prefixes", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "app.py": "a = 1\nb = 2\nc = 3\n", "old.txt": "x\n".repeat(12) });
    const head = repo.commit({
      "app.py": "a = 1\n+plus = 'starts with plus'\nb = 2\nc = 3\nkey = 'AKIA'\n",
      "new file.txt": "first\nsecond",
      "old.txt": null,
      "moved.txt": "x\n".repeat(12) + "token = 't0k'\n",
    });
    const opened = await openRepository(repo.dir, tempDir());
    const result = await opened.addedLines(await opened.diff(base, head), 1024 * 1024);
    expect(forPath(result, "app.py")).toEqual({ path: "app.py", lines: [{ line: 2, text: "+plus = 'starts with plus'" }, { line: 5, text: "key = 'AKIA'" }] });
    expect(forPath(result, "new file.txt").lines).toEqual([{ line: 1, text: "first" }, { line: 2, text: "second" }]);
    expect(forPath(result, "moved.txt").lines).toEqual([{ line: 13, text: "token = 't0k'" }]);
    expect(result.find((r) => r.path === "old.txt")).toBeUndefined();
  });

  it("handles odd path names, since paths never reach the patch", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "-x\n\"q\" ✓": "one\n" });
    const head = repo.commit({ "-x\n\"q\" ✓": "one\ntwo\n" });
    const opened = await openRepository(repo.dir, tempDir());
    const [entry] = await opened.addedLines(await opened.diff(base, head), 1000);
    expect(entry).toEqual({ path: "-x\n\"q\" ✓", lines: [{ line: 2, text: "two" }] });
  });

  it("says which files it skipped and why", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "a.txt": "a\n", "grows.txt": "small\n" });
    let head = repo.commit({
      "bin.dat": Buffer.from([0, 1, 2, 3, 0]),
      "link": { symlink: "a.txt" },
      "grows.txt": "small\n" + "y".repeat(2000) + "\n",
      "big.txt": "z".repeat(5000),
    });
    head = commitGitlink(repo, "sub", base);
    const opened = await openRepository(repo.dir, tempDir());
    const result = await opened.addedLines(await opened.diff(base, head), 1000);
    expect(forPath(result, "bin.dat")).toEqual({ path: "bin.dat", lines: [], skipped: "binary" });
    expect(forPath(result, "link").skipped).toBe("symlink");
    expect(forPath(result, "sub").skipped).toBe("submodule");
    expect(forPath(result, "big.txt").skipped).toMatch(/larger than 1000 bytes/);
    expect(forPath(result, "grows.txt").skipped).toMatch(/larger than 1000 bytes/);
  });

  it("ignores .gitattributes that would hide text as binary", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ ".gitattributes": "*.txt binary\n*.cfg -diff\n" });
    const head = repo.commit({ "secret.txt": "password=hunter2\n", "app.cfg": "token=abc\n" });
    const opened = await openRepository(repo.dir, tempDir());
    const result = await opened.addedLines(await opened.diff(base, head), 1000);
    expect(forPath(result, "secret.txt")).toEqual({ path: "secret.txt", lines: [{ line: 1, text: "password=hunter2" }] });
    expect(forPath(result, "app.cfg").lines).toEqual([{ line: 1, text: "token=abc" }]);
  });

  it("reads every line of a file that replaces a symlink", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "conf": { symlink: "elsewhere" } });
    const head = repo.commit({ "conf": "line one\nline two\n" });
    const opened = await openRepository(repo.dir, tempDir());
    const facts = await opened.diff(base, head);
    expect(facts[0]?.status).toBe("T");
    expect(await opened.addedLines(facts, 1000)).toEqual([{ path: "conf", lines: [{ line: 1, text: "line one" }, { line: 2, text: "line two" }] }]);
  });
});

describe("hunks", () => {
  it("numbers each hunk on the base side, pure insertions by the line they follow", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "lib.rs": "a\nb\nc\nd\n" });
    const head = repo.commit({ "lib.rs": "a\nB\nc\nnew\nd\n" });
    const opened = await openRepository(repo.dir, tempDir());
    const [fact] = await opened.diff(base, head);
    expect(await opened.hunks(fact?.oldBlob ?? "", fact?.newBlob ?? "")).toEqual([
      { oldStart: 2, oldCount: 1, added: ["B"] },
      { oldStart: 3, oldCount: 0, added: ["new"] },
    ]);
  });
});
