import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openRepository } from "../../src/workspace/index.js";
import { tempDir, TestRepo } from "../helpers/git-repo.js";
import { commitGitlink, craftCommit, setBranch } from "./craft.js";

const LFS_POINTER = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";

describe("materialise", () => {
  it("writes the exact committed bytes, modes, symlinks and gitlinks, without .git", async () => {
    const repo = TestRepo.init();
    const sub = repo.commit({
      ".gitattributes": "* text eol=crlf\n*.bin filter=lfs diff=lfs merge=lfs -text\nversion.txt export-subst\n",
      "model.bin": LFS_POINTER,
      "lf.txt": "one\ntwo\n",
      "version.txt": "$Format:%H$\n",
      "passwd": { symlink: "/etc/passwd" },
      "run.sh": { content: "#!/bin/sh\necho ok\n", mode: 0o755 },
      "odd/with spaces ✓.txt": "unicode\n",
      "odd/-leading-dash": "dash\n",
    });
    const unlisted = commitGitlink(repo, "deps/lib", sub);
    // The gitlink's URL: the repository itself (a local path, which this test's access allows).
    const head = repo.commit({ ".gitmodules": `[submodule "lib"]\n\tpath = deps/lib\n\turl = ${repo.dir}\n` });
    const opened = await openRepository(repo.dir, tempDir(), { submodules: { hosts: [], file: true, depth: 1 } });
    // A gitlink no .gitmodules entry names has no URL: refused, never an empty folder (issue 22).
    await expect(opened.materialise(unlisted, join(tempDir(), "unlisted"))).rejects.toThrow(/submodule "deps\/lib": no entry in \.gitmodules names it/);
    const dest = join(tempDir(), "tree");
    await opened.materialise(head, dest);

    expect(readdirSync(dest).sort()).toEqual([".gitattributes", ".gitmodules", "deps", "lf.txt", "model.bin", "odd", "passwd", "run.sh", "version.txt"]);
    expect(readFileSync(join(dest, "lf.txt"), "utf8")).toBe("one\ntwo\n"); // no CRLF conversion
    expect(readFileSync(join(dest, "model.bin"), "utf8")).toBe(LFS_POINTER); // no LFS smudge
    expect(readFileSync(join(dest, "version.txt"), "utf8")).toBe("$Format:%H$\n"); // no export-subst
    expect(lstatSync(join(dest, "passwd")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dest, "passwd"))).toBe("/etc/passwd");
    expect(statSync(join(dest, "run.sh")).mode & 0o777).toBe(0o755);
    expect(statSync(join(dest, "lf.txt")).mode & 0o777).toBe(0o644);
    expect(readFileSync(join(dest, "odd", "with spaces ✓.txt"), "utf8")).toBe("unicode\n");
    expect(readFileSync(join(dest, "odd", "-leading-dash"), "utf8")).toBe("dash\n");
    // The gitlink holds its submodule's commit, written by the same rules (bytes, modes, links).
    expect(statSync(join(dest, "deps", "lib")).isDirectory()).toBe(true);
    expect(readFileSync(join(dest, "deps", "lib", "model.bin"), "utf8")).toBe(LFS_POINTER);
    expect(readlinkSync(join(dest, "deps", "lib", "passwd"))).toBe("/etc/passwd");
    expect(statSync(join(dest, "deps", "lib", "run.sh")).mode & 0o777).toBe(0o755);
    expect(existsSync(join(dest, ".git"))).toBe(false);
    expect(existsSync(join(dest, "deps", "lib", ".git"))).toBe(false);
  });

  it("streams many and large files through one reader", async () => {
    const repo = TestRepo.init();
    const files: Record<string, Buffer | string> = { "big.bin": Buffer.alloc(3 * 1024 * 1024 + 7, 0xab) };
    for (let i = 0; i < 200; i++) files[`many/f${i}.txt`] = `file ${i}\n`;
    const head = repo.commit(files);
    const dest = join(tempDir(), "out");
    await (await openRepository(repo.dir, tempDir())).materialise(head, dest);
    expect(readFileSync(join(dest, "big.bin")).equals(files["big.bin"] as Buffer)).toBe(true);
    expect(readdirSync(join(dest, "many"))).toHaveLength(200);
    expect(readFileSync(join(dest, "many", "f199.txt"), "utf8")).toBe("file 199\n");
  });

  it("refuses a destination that is not empty, but accepts an empty one", async () => {
    const repo = TestRepo.init();
    const head = repo.commit({ "a.txt": "a\n" });
    const opened = await openRepository(repo.dir, tempDir());
    const full = tempDir();
    writeFileSync(join(full, "x"), "x");
    await expect(opened.materialise(head, full)).rejects.toThrow(/not empty/);
    const empty = tempDir();
    await opened.materialise(head, empty);
    expect(readFileSync(join(empty, "a.txt"), "utf8")).toBe("a\n");
  });

  it.each([
    ["a '..' component", "../escape.txt", /'\.\.' component/],
    ["a '.git' component in any case", "sub/.GiT/config", /'\.git' component/],
    ["a control character", "new\nline.txt", /control character/],
  ])("refuses a tree with %s and writes nothing", async (_label, path, reason) => {
    const repo = TestRepo.init();
    repo.commit({ "ok.txt": "ok\n" });
    const crafted = craftCommit(repo.dir, [{ path: "ok.txt", mode: "100644", content: "ok\n" }, { path, mode: "100644", content: "evil\n" }]);
    setBranch(repo.dir, "crafted", crafted);
    const opened = await openRepository(repo.dir, tempDir());
    const parent = tempDir();
    const dest = join(parent, "tree");
    await expect(opened.materialise("crafted", dest)).rejects.toThrow(reason);
    expect(existsSync(dest)).toBe(false);
    expect(readdirSync(parent)).toEqual([]);
  });

  it("never writes through a symlink that shares a name with a directory", async () => {
    const repo = TestRepo.init();
    repo.commit({ "ok.txt": "ok\n" });
    const outside = tempDir();
    const crafted = craftCommit(repo.dir, [
      { path: "a", mode: "120000", content: outside },
      { path: "a/pwned.txt", mode: "100644", content: "evil\n" },
    ]);
    setBranch(repo.dir, "crafted", crafted);
    const opened = await openRepository(repo.dir, tempDir());
    await expect(opened.materialise("crafted", join(tempDir(), "tree"))).rejects.toThrow(/parent is not a directory/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("refuses a destination that is a file", async () => {
    const repo = TestRepo.init();
    const head = repo.commit({ "a.txt": "a\n" });
    const dir = tempDir();
    mkdirSync(join(dir, "d"));
    writeFileSync(join(dir, "f"), "");
    const opened = await openRepository(repo.dir, tempDir());
    await expect(opened.materialise(head, join(dir, "f"))).rejects.toThrow(/not a directory/);
  });
});

describe("materialise and diff with an oversized symlink", () => {
  it("refuse a symlink whose target is longer than PATH_MAX", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "ok.txt": "ok\n" });
    const crafted = craftCommit(repo.dir, [{ path: "ok.txt", mode: "100644", content: "ok\n" }, { path: "long", mode: "120000", content: "x/".repeat(3000) }], base);
    setBranch(repo.dir, "crafted", crafted);
    const opened = await openRepository(repo.dir, tempDir());
    await expect(opened.materialise("crafted", join(tempDir(), "t"))).rejects.toThrow(/target longer than 4096 bytes/);
    await expect(opened.diff(base, "crafted")).rejects.toThrow(/symlink long has a 6000-byte target/);
  });
});
