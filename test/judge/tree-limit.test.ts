import { statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { TestRepo, tempDir } from "../helpers/git-repo.js";

// Bounded tree writes, end to end (issue 21): a head whose code writes 256 MB into its tree, under a
// policy with sandbox.tree_mb 8, is stopped by the kernel at the limit and FAILs as unsafe, saying
// so; the host's disk never takes the bytes.
describe("a head that writes past tree_mb", () => {
  it("FAILs unsafe with 'wrote more than 8 MB into the tree', and the host's free space is unchanged", async () => {
    const repo = TestRepo.init();
    repo.commit({
      ".github/ranex.yml": "version: 1\nsandbox:\n  tree_mb: 8\ntests:\n  command: python3 -m pytest --junitxml=\"$RANEX_JUNIT\" tests\n  timeout: 60\nscope: { allow: ['src/**'] }\nrequire: [diff.scope, diff.safety, tests.regression]\n",
      "src/__init__.py": "",
      "src/calc.py": "def add(a, b):\n    return a + b\n",
      "tests/test_calc.py": "from src.calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    }, "base");
    repo.branch("fill");
    repo.commit({
      "src/calc.py": [
        "import os",
        "with open(os.path.join(os.path.dirname(__file__), 'ballast'), 'wb') as f:",
        "    for _ in range(256):",
        "        f.write(b'0' * (1 << 20))",
        "def add(a, b):",
        "    return a + b",
      ].join("\n") + "\n",
    }, "fill");
    const free = (): number => { const fs = statfsSync(tmpdir()); return fs.bavail * fs.bsize; };
    const before = free();
    const judgment = await judge({ source: repo.dir, base: "main", head: "fill", task: null, dataDir: tempDir() });
    const after = free();
    expect(judgment.verdict.verdict).toBe("FAIL");
    expect(judgment.verdict.class).toBe("unsafe");
    const regression = judgment.verdict.claims.find((c) => c.name === "tests.regression");
    expect(regression?.reason).toContain("wrote more than 8 MB into the tree");
    // Other work on this machine moves the free space a little; the 256 MB never reached the disk.
    expect(Math.abs(before - after), `free space moved by ${Math.round((before - after) / 2 ** 20)} MB`).toBeLessThan(64 * 2 ** 20);
  }, 240_000);
});
