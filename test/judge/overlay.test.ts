import { mkdirSync, readFileSync, symlinkSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeInside } from "../../src/judge/overlay.js";
import { tempDir } from "../helpers/git-repo.js";

// The overlay writes the PR's new test files into the materialised base tree. That tree is
// untrusted: the attacks below try to make the overlay write outside it.
describe("writeInside", () => {
  it("writes a new file in new folders", async () => {
    const root = tempDir();
    await writeInside(root, "tests/deep/test_new.py", Buffer.from("x = 1\n"));
    expect(readFileSync(join(root, "tests/deep/test_new.py"), "utf8")).toBe("x = 1\n");
  });

  it("refuses to write through a symlinked folder of the base tree", async () => {
    const root = tempDir();
    const outside = tempDir();
    symlinkSync(outside, join(root, "tests"));
    await expect(writeInside(root, "tests/test_evil.py", Buffer.from("pwned"))).rejects.toThrow(/not a directory/);
    expect(existsSync(join(outside, "test_evil.py"))).toBe(false);
  });

  it("refuses to overwrite a symlink planted at the target path", async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, "victim"), "safe");
    mkdirSync(join(root, "tests"));
    symlinkSync(join(outside, "victim"), join(root, "tests/test_x.py"));
    await expect(writeInside(root, "tests/test_x.py", Buffer.from("pwned"))).rejects.toThrow(/not a regular file/);
    expect(readFileSync(join(outside, "victim"), "utf8")).toBe("safe");
  });

  it.each(["../escape.py", "tests/../../escape.py", "/etc/escape.py", ""])("refuses the path %j", async (path) => {
    const root = tempDir();
    await expect(writeInside(root, path, Buffer.from("x"))).rejects.toThrow(/outside the tree/);
  });
});
