import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { TestRepo, tempDir } from "../helpers/git-repo.js";

// Issue 11: a head that fills the disk the trees live on while the base runs. The base run loses its
// report; cached, it would FAIL every later honest PR on that base. It is never cached. The disk is a
// small tmpfs mounted for this test (skipped where this process may not mount). The head frees the
// disk before it ends, so only the base run's report is lost.
function smallDisk(dir: string, mb: number): boolean {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${mb}m`, "tmpfs", dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("a head that fills the shared disk while the base runs", () => {
  it("cannot poison the base cache: the next honest PR on that base is a CANDIDATE", async () => {
    const disk = join(tempDir("ranex-disk-"), "mnt");
    mkdirSync(disk);
    if (!smallDisk(disk, 48)) return;
    const savedTmp = process.env.TMPDIR;
    try {
      const repo = TestRepo.init();
      repo.commit({
        ".github/ranex.yml": "version: 1\ntests:\n  command: python3 -m pytest --junitxml=\"$RANEX_JUNIT\" tests\n  timeout: 60\nscope: { allow: ['src/**'] }\nrequire: [diff.scope, diff.safety, tests.regression]\n",
        "src/__init__.py": "",
        "src/calc.py": "def add(a, b):\n    return a + b\n",
        // Slow enough that the base writes its report while the head holds the disk full.
        "tests/test_calc.py": "import time\nfrom src.calc import add\n\ndef test_add():\n    time.sleep(10)\n    assert add(2, 3) == 5\n",
      }, "base");
      repo.branch("fill");
      repo.commit({
        "src/calc.py": [
          "import os, time",
          "def _fill():",
          "    try:",
          "    ballast = os.path.join(os.path.dirname(__file__), 'ballast')",
          "    try:",
          "        with open(ballast, 'wb') as f:",
          "            while True:",
          "                f.write(b'0' * (1 << 20))",
          "    except OSError:",
          "        pass",
          "    time.sleep(15)",
          "    os.remove(ballast)",
          "_fill()",
          "def add(a, b):",
          "    return a + b",
        ].join("\n") + "\n",
      }, "fill");
      repo.branch("honest", "main");
      repo.commit({
        "src/calc.py": "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return a * b\n",
      }, "mul");

      process.env.TMPDIR = disk;
      const dataDir = tempDir();
      const filled = await judge({ source: repo.dir, base: "main", head: "fill", task: null, dataDir });
      expect(filled.verdict.verdict).toBe("FAIL");
      const honest = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
      const claims = Object.fromEntries(honest.verdict.claims.map((c) => [c.name, c]));
      expect(claims["tests.regression"]?.status, claims["tests.regression"]?.reason).toBe("pass");
      expect(honest.verdict.verdict).toBe("CANDIDATE");
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      execFileSync("umount", ["-l", disk], { stdio: "ignore" });
    }
  }, 240_000);
});
