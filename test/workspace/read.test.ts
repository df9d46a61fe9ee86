import { describe, expect, it } from "vitest";
import { openRepository, WorkspaceError } from "../../src/workspace/index.js";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";
import { commitGitlink } from "./craft.js";

describe("reading a commit", () => {
  it("gives the tree sha of a commit", async () => {
    const repo = TestRepo.init();
    const head = repo.commit({ "a.txt": "a\n" });
    const opened = await openRepository(repo.dir, tempDir());
    expect(await opened.treeOf(head)).toBe(git(repo.dir, "rev-parse", "HEAD^{tree}"));
    expect(await opened.treeOf("main")).toBe(git(repo.dir, "rev-parse", "HEAD^{tree}"));
  });

  it("reads a blob's exact bytes on the commit asked for, not on another", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ ".github/ranex.yml": "version: 1\r\n", ".gitattributes": "* text eol=crlf\n" });
    const head = repo.commit({ ".github/ranex.yml": "version: 2\n" });
    const opened = await openRepository(repo.dir, tempDir());
    expect((await opened.readBlob(base, ".github/ranex.yml", 100))?.toString("utf8")).toBe("version: 1\n");
    expect((await opened.readBlob(head, ".github/ranex.yml", 100))?.toString("utf8")).toBe("version: 2\n");
  });

  it("reads many blobs of one tree at once, leaving out what is absent or larger than the limit", async () => {
    const repo = TestRepo.init();
    const head = repo.commit({ "a.py": "import b\n", "dir/b.js": "b\n", "big.txt": "x".repeat(200), "a*.txt": "star\n" });
    const opened = await openRepository(repo.dir, tempDir());
    const read = await opened.readBlobs(head, ["a.py", "dir/b.js", "big.txt", "missing.txt", "a?.txt", "a*.txt"], 100);
    expect([...read].map(([path, blob]) => [path, blob.toString("utf8")]).sort()).toEqual([["a*.txt", "star\n"], ["a.py", "import b\n"], ["dir/b.js", "b\n"]]);
    expect((await opened.readBlobs(head, [], 100)).size).toBe(0);
  });

  it("returns null for an absent path and takes odd names literally", async () => {
    const repo = TestRepo.init();
    const head = repo.commit({ "a*.txt": "star\n", ":(glob)x": "magic\n", "-dash": "dash\n" });
    const opened = await openRepository(repo.dir, tempDir());
    expect(await opened.readBlob(head, "missing.txt", 100)).toBeNull();
    expect(await opened.readBlob(head, "a?.txt", 100)).toBeNull();
    expect((await opened.readBlob(head, "a*.txt", 100))?.toString()).toBe("star\n");
    expect((await opened.readBlob(head, ":(glob)x", 100))?.toString()).toBe("magic\n");
    expect((await opened.readBlob(head, "-dash", 100))?.toString()).toBe("dash\n");
  });

  it("refuses directories, symlinks, gitlinks and blobs over the limit", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "dir/f.txt": "f\n", "link": { symlink: "dir/f.txt" }, "big.txt": "x".repeat(101) });
    const head = commitGitlink(repo, "sub", base);
    const opened = await openRepository(repo.dir, tempDir());
    await expect(opened.readBlob(head, "dir", 1000)).rejects.toThrow(/dir on [0-9a-f]{40} is not a regular file/);
    await expect(opened.readBlob(head, "link", 1000)).rejects.toThrow(/not a regular file \(mode 120000\)/);
    await expect(opened.readBlob(head, "sub", 1000)).rejects.toThrow(/not a regular file \(mode 160000\)/);
    await expect(opened.readBlob(head, "big.txt", 100)).rejects.toThrow(/101 bytes, more than the limit of 100/);
    expect((await opened.readBlob(head, "big.txt", 101))?.length).toBe(101);
    await expect(opened.readBlob(head, "/etc/passwd", 1000)).rejects.toThrow(WorkspaceError);
  });

  it("lists every path with mode and blob, gitlinks and odd names included", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "src/a.ts": "a\n", "run.sh": { content: "x\n", mode: 0o755 }, "new\nline": "n\n", "link": { symlink: "src" } });
    const head = commitGitlink(repo, "vendor/sub", base);
    const files = await (await openRepository(repo.dir, tempDir())).listFiles(head);
    expect(files.map((f) => [f.path, f.mode]).sort()).toEqual([
      ["link", "120000"], ["new\nline", "100644"], ["run.sh", "100755"], ["src/a.ts", "100644"], ["vendor/sub", "160000"],
    ]);
    expect(files.find((f) => f.path === "vendor/sub")?.blob).toBe(base);
    expect(files.find((f) => f.path === "src/a.ts")?.blob).toBe(git(repo.dir, "rev-parse", `${head}:src/a.ts`));
  });
});
