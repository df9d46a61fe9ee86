import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeInside } from "../../src/workspace/write-inside.js";
import { tempDir } from "../helpers/git-repo.js";

// The overlay writes the PR's new test files into the materialised base tree. That tree is
// untrusted: the attacks below try to make the overlay write outside it. What stands in the way is
// replaced, never followed.
describe("writeInside", () => {
  it("writes a new file in new folders", async () => {
    const root = tempDir();
    await writeInside(root, "tests/deep/test_new.py", Buffer.from("x = 1\n"));
    expect(readFileSync(join(root, "tests/deep/test_new.py"), "utf8")).toBe("x = 1\n");
  });

  it("replaces a symlinked folder of the base tree with a folder, never writing through the link", async () => {
    const root = tempDir();
    const outside = tempDir();
    symlinkSync(outside, join(root, "tests"));
    await writeInside(root, "tests/test_evil.py", Buffer.from("x = 1\n"));
    expect(existsSync(join(outside, "test_evil.py"))).toBe(false);
    expect(lstatSync(join(root, "tests")).isDirectory()).toBe(true);
    expect(readFileSync(join(root, "tests/test_evil.py"), "utf8")).toBe("x = 1\n");
  });

  it("replaces a symlink planted at the target path, leaving its target alone", async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, "victim"), "safe");
    mkdirSync(join(root, "tests"));
    symlinkSync(join(outside, "victim"), join(root, "tests/test_x.py"));
    await writeInside(root, "tests/test_x.py", Buffer.from("mine"));
    expect(readFileSync(join(outside, "victim"), "utf8")).toBe("safe");
    expect(lstatSync(join(root, "tests/test_x.py")).isFile()).toBe(true);
  });

  it("lays a file over a folder and a folder over a file (a path that changed kind)", async () => {
    const root = tempDir();
    writeFileSync(join(root, "data"), "a file on the base");
    mkdirSync(join(root, "old"));
    writeFileSync(join(root, "old/inner.txt"), "a folder on the base");
    await writeInside(root, "data/test_d.py", Buffer.from("d"));
    await writeInside(root, "old", Buffer.from("o"));
    expect(readFileSync(join(root, "data/test_d.py"), "utf8")).toBe("d");
    expect(readFileSync(join(root, "old"), "utf8")).toBe("o");
  });

  it.each(["../escape.py", "tests/../../escape.py", "/etc/escape.py", ""])("refuses the path %j", async (path) => {
    const root = tempDir();
    await expect(writeInside(root, path, Buffer.from("x"))).rejects.toThrow(/outside the tree/);
  });
});
