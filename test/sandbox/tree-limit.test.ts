import { statfsSync, writeFileSync, mkdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";
import { releaseTrees } from "../../src/sandbox/tree-limit.js";
import { tempDir } from "../helpers/git-repo.js";
import { PROFILE } from "./helpers.js";

// Bounded tree writes (issue 21): a run that writes past its tree's limit is stopped by the kernel
// (ENOSPC in a size-limited overlay), reported as a violation naming the limit, and the host's disk
// never receives the bytes. Writes within the limit stay for the tree's next run (tests see what
// setup built), frozen paths stay read-only.

const MB = 1024 * 1024;

function tree(): string {
  const dir = tempDir("ranex-tree-test-");
  mkdirSync(join(dir, "tests"));
  writeFileSync(join(dir, "tests", "test_frozen.py"), "def test_x():\n    assert True\n");
  writeFileSync(join(dir, "README"), "small tree\n");
  return dir;
}

function hostFree(path: string): number {
  const fs = statfsSync(path);
  return fs.bavail * fs.bsize;
}

describe("a run's tree has a size limit", () => {
  it("stops a run writing past tree_mb, names the limit, and leaves the host's free space as it was", async () => {
    const workdir = tree();
    const sandbox = createSandbox({ ...PROFILE, treeBytes: 16 * MB });
    // The disk the checkout is on (the tree's own path shows the overlay once bounded).
    const disk = dirname(workdir);
    const before = hostFree(disk);
    // 256 MB asked for, in the tree: only the limit's worth can land, and not on the host's disk.
    const run = await sandbox.run({
      command: "dd if=/dev/zero of=/work/ballast bs=1M count=256 2>&1; echo dd-exit=$?", workdir, env: {}, timeoutMs: 60_000, network: false,
    });
    const after = hostFree(disk);
    expect(run.violation).toBe("wrote more than 16 MB into the tree (the limit, sandbox.tree_mb)");
    expect(run.outputTail).toMatch(/No space left on device/);
    // Other work on this machine moves the free space a little; the 256 MB never reached the disk.
    expect(Math.abs(before - after), `free space moved by ${Math.round((before - after) / MB)} MB`).toBeLessThan(16 * MB);
    releaseTrees();
    expect(existsSync(join(workdir, "ballast"))).toBe(false);
  }, 120_000);

  it("keeps writes within the limit for the tree's next run, and frozen paths read-only", async () => {
    const workdir = tree();
    const sandbox = createSandbox({ ...PROFILE, treeBytes: 16 * MB });
    const built = await sandbox.run({
      command: "mkdir -p build && echo built > build/out.txt && rm README", workdir, env: {}, timeoutMs: 60_000, network: false,
      readonlyPaths: ["tests/test_frozen.py"],
    });
    expect(built).toMatchObject({ exitCode: 0, violation: null });
    const next = await sandbox.run({
      command: "cat build/out.txt; test -e README && echo readme-back; echo tamper > tests/test_frozen.py || echo frozen-held",
      workdir, env: {}, timeoutMs: 60_000, network: false, readonlyPaths: ["tests/test_frozen.py"],
    });
    expect(next.violation).toBeNull();
    expect(next.outputTail).toContain("built");
    expect(next.outputTail).not.toContain("readme-back");
    expect(next.outputTail).toContain("frozen-held");
    // The host reads the tree as the runs left it (the dependency capture does), until it is released.
    expect(readFileSync(join(workdir, "build", "out.txt"), "utf8")).toBe("built\n");
    expect(readFileSync(join(workdir, "tests", "test_frozen.py"), "utf8")).toContain("assert True");
    releaseTrees();
    expect(existsSync(join(workdir, "build"))).toBe(false);
    expect(existsSync(join(workdir, "README"))).toBe(true);
  }, 120_000);

  it("defaults to a multiple of the tree's size with a floor of 1024 MB", async () => {
    const workdir = tree();
    const sandbox = createSandbox(PROFILE);
    const run = await sandbox.run({ command: "df -m /work | tail -1", workdir, env: {}, timeoutMs: 60_000, network: false });
    expect(run.exitCode).toBe(0);
    // df inside shows the overlay, sized by its upper tmpfs: the floor.
    expect(run.outputTail).toMatch(/\s1024\s/);
  }, 120_000);
});
