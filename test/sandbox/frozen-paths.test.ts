import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSandbox, profileDigest } from "../../src/sandbox/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { PROFILE } from "./helpers.js";

// Issue 11: nothing in a run can change a frozen path. The frozen files are bound read-only over the
// writable tree; the rest of the tree stays writable, and scratch is a private tmpfs of fixed size.
function tree(): string {
  const dir = tempDir("ranex-frozen-");
  mkdirSync(join(dir, "tests"));
  writeFileSync(join(dir, "tests/test_calc.py"), "def test_add():\n    assert 1 + 1 == 2\n");
  return dir;
}

describe("frozen paths inside a run", () => {
  it("cannot be rewritten, deleted or renamed; the folder beside them stays writable", async () => {
    const dir = tree();
    const result = await createSandbox(PROFILE).run({
      command: [
        "echo 'def test_add(): pass' > tests/test_calc.py || echo write-refused",
        "rm -f tests/test_calc.py || echo delete-refused",
        "mv tests/test_calc.py tests/moved.py || echo rename-refused",
        "echo out > tests/output.txt && echo beside-ok",
      ].join("; "),
      workdir: dir, env: {}, timeoutMs: 10_000, network: false, readonlyPaths: ["tests/test_calc.py"],
    });
    expect(result.violation).toBeNull();
    for (const word of ["write-refused", "delete-refused", "rename-refused", "beside-ok"]) expect(result.outputTail).toContain(word);
    expect(readFileSync(join(dir, "tests/test_calc.py"), "utf8")).toContain("assert 1 + 1 == 2");
    expect(readdirSync(join(dir, "tests")).sort()).toEqual(["output.txt", "test_calc.py"]);
  });

  it("refuses a run whose frozen path is reached through a link, saying which and why", async () => {
    const dir = tempDir("ranex-frozen-");
    const outside = tempDir("ranex-host-");
    writeFileSync(join(outside, "test_calc.py"), "host file\n");
    symlinkSync(outside, join(dir, "tests"));
    const result = await createSandbox(PROFILE).run({
      command: "cat tests/test_calc.py", workdir: dir, env: {}, timeoutMs: 10_000, network: false, readonlyPaths: ["tests/test_calc.py"],
    });
    expect(result.exitCode).toBeNull();
    expect(result.violation).toBe('refused: the frozen path "tests/test_calc.py" is reached through a symbolic link');
  });

  it("refuses a run whose frozen path is gone or no longer a file", async () => {
    const dir = tree();
    const sandbox = createSandbox(PROFILE);
    const gone = await sandbox.run({ command: "true", workdir: dir, env: {}, timeoutMs: 10_000, network: false, readonlyPaths: ["tests/nope.py"] });
    expect(gone.violation).toBe('refused: the frozen path "tests/nope.py" is gone from the tree');
    const folder = await sandbox.run({ command: "true", workdir: dir, env: {}, timeoutMs: 10_000, network: false, readonlyPaths: ["tests"] });
    expect(folder.violation).toBe('refused: the frozen path "tests" is no longer a regular file of the tree');
  });
});

describe("private scratch", () => {
  it("is a tmpfs of the profile's size: a run that fills it gets ENOSPC, and HOME and TMPDIR live in it", async () => {
    const profile = { ...PROFILE, scratchBytes: 4 * 1024 * 1024 };
    const result = await createSandbox(profile).run({
      command: 'head -c 8000000 /dev/zero > "$TMPDIR/fill" || echo "full"; df -k "$HOME" | tail -1',
      workdir: tree(), env: {}, timeoutMs: 10_000, network: false,
    });
    expect(result.outputTail).toContain("No space left on device");
    expect(result.outputTail).toMatch(/tmpfs\s+4096\s/);
  });

  it("its size is part of the profile digest", () => {
    expect(profileDigest({ ...PROFILE, scratchBytes: 1 << 20 })).not.toBe(profileDigest(PROFILE));
  });
});
