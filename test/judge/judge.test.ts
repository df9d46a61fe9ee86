import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { fixtureRepo } from "../helpers/fixtures.js";
import { TestRepo, tempDir } from "../helpers/git-repo.js";

// Tests that make two judgments, or four runs, get more time than the default.
describe("the base-run cache", () => {
  it("answers a second judgment of the same base, with the same verdict", async () => {
    const repo = await fixtureRepo("python-calc");
    const dataDir = tempDir();
    const first = await judge({ source: repo, base: "main", head: "honest", task: "mul", dataDir });
    const second = await judge({ source: repo, base: "main", head: "honest", task: "mul", dataDir });
    expect(first.timings.base).toBeGreaterThan(0);
    expect(first.timings["base-cached"]).toBeUndefined();
    expect(second.timings["base-cached"]).toBe(0);
    expect(second.timings.base).toBeUndefined();
    // Timings differ run to run (they are part of the evidence); what was found must not.
    const found = (j: typeof first) => j.verdict.claims.map((c) => [c.name, c.status, c.details.map((d) => d.message)]);
    expect(found(second)).toEqual(found(first));
    expect(second.verdict.verdict).toBe("CANDIDATE");
  }, 180_000);

  it("is shared by every PR on that base: the clean base run holds nothing of any PR", async () => {
    const repo = await fixtureRepo("python-calc");
    const dataDir = tempDir();
    const first = await judge({ source: repo, base: "main", head: "hide-regression", task: "mul", dataDir });
    expect(first.verdict.verdict).toBe("FAIL");
    const other = await judge({ source: repo, base: "main", head: "honest", task: "mul", dataDir });
    expect(other.timings["base-cached"]).toBe(0);
    expect(other.timings["base+new"]).toBeGreaterThan(0);
    expect(other.verdict.verdict).toBe("CANDIDATE");
  }, 180_000);
});

// Invariant 6: the process that measures, and everything under it, holds no key. A key is planted
// in this process's environment and on disk; the repository's own test suite hunts for it from
// inside the sandbox and fails if it finds it. The measuring process would also refuse to start
// (and the judgment FAIL) if the key reached its environment.
describe("keyless measurement", () => {
  const planted = ["RANEX_SIGNING_KEY", "RANEX_SIGNING_KEY_PATH", "GITHUB_TOKEN"] as const;
  afterEach(() => {
    for (const name of planted) delete process.env[name];
  });

  it("a test suite hunting for a planted key finds nothing, and the change is a CANDIDATE", async () => {
    const marker = `ranex-planted-${process.pid}-${Date.now()}`;
    const dataDir = tempDir();
    const keyFile = join(dataDir, "planted.key");
    writeFileSync(keyFile, marker, { mode: 0o600 });
    process.env.RANEX_SIGNING_KEY = marker;
    process.env.RANEX_SIGNING_KEY_PATH = keyFile;
    process.env.GITHUB_TOKEN = `ghs_${marker}`;

    const hunt = [
      "import os, glob",
      `MARKER = ${JSON.stringify(marker)}`,
      `PLACES = [${JSON.stringify(keyFile)}, ${JSON.stringify(dataDir)}, os.path.expanduser("~")]`,
      "def read(path):",
      "    try:",
      "        with open(path, 'rb') as f: return f.read().decode('utf8', 'replace')",
      "    except OSError: return ''",
      "def test_environment_holds_no_key():",
      "    assert not any(MARKER in v for v in os.environ.values())",
      "def test_no_process_environment_holds_it():",
      "    for path in glob.glob('/proc/*/environ') + ['/proc/1/environ', '/proc/1/cmdline']:",
      "        assert MARKER not in read(path), path",
      "def test_parent_memory_is_out_of_reach():",
      "    for pid in [os.getppid(), 1]:",
      "        try:",
      "            with open(f'/proc/{pid}/mem', 'rb') as f: f.read(1)",
      "        except OSError: continue",
      "def test_key_file_and_data_dir_are_out_of_reach():",
      "    for place in PLACES:",
      "        for root, _dirs, files in os.walk(place):",
      "            for name in files: assert MARKER not in read(os.path.join(root, name))",
      "        assert MARKER not in read(place)",
    ].join("\n") + "\n";
    const repo = TestRepo.init();
    repo.commit({
      ".github/ranex.yml": [
        "version: 1",
        "tests:",
        "  command: python3 -m pytest -q -p no:cacheprovider --continue-on-collection-errors --junitxml=\"$RANEX_JUNIT\" tests",
        "  timeout: 60",
        "scope: { allow: ['src/**'] }",
      ].join("\n") + "\n",
      "src/__init__.py": "",
      "src/value.py": "def value():\n    return 1\n",
      "tests/test_value.py": "from src.value import value\n\ndef test_value():\n    assert value() == 1\n",
    }, "base");
    repo.branch("hunt");
    repo.commit({ "src/value.py": "def value():\n    return 1\n\ndef two():\n    return 2\n", "tests/test_hunt.py": `from src.value import two\n\ndef test_two():\n    assert two() == 2\n\n${hunt}` }, "hunt");

    const judged = await judge({ source: repo.dir, base: "main", head: "hunt", task: null, dataDir });
    const claims = Object.fromEntries(judged.verdict.claims.map((c) => [c.name, c]));
    expect(claims["tests.regression"]?.status, claims["tests.regression"]?.reason).toBe("pass");
    expect(claims["tests.red_green"]?.status, claims["tests.red_green"]?.reason).toBe("pass");
    expect(judged.verdict.verdict).toBe("CANDIDATE");
    expect(JSON.stringify(judged)).not.toContain(marker);
  }, 180_000);
});

describe("a superseded judgment", () => {
  it("ends its measuring process and sandboxes when aborted, and rejects", async () => {
    const repo = await fixtureRepo("python-calc");
    const controller = new AbortController();
    // A scratch root of its own, so the survivor scan below sees this judgment's processes only
    // (other test files judge at the same time).
    const scratchRoot = tempDir("ranex-abort-");
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = scratchRoot;
    const started = performance.now();
    try {
      // The `hang` head's suite never ends by itself (its policy allows it 20 s).
      const judging = judge({ source: repo, base: "main", head: "hang", task: null, dataDir: tempDir(), signal: controller.signal });
      setTimeout(() => controller.abort(new Error("superseded by a newer head")), 1500);
      await expect(judging).rejects.toThrow(/superseded/);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    }
    expect(performance.now() - started).toBeLessThan(10_000);
    // Nothing of the judgment is left running: no sandbox (its command line names the scratch
    // folder), no measuring process (it works in the scratch folder).
    const { readdirSync, readFileSync, readlinkSync } = await import("node:fs");
    const survivors = readdirSync("/proc").filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        const cwd = (() => { try { return readlinkSync(`/proc/${pid}/cwd`); } catch { return ""; } })();
        return cmdline.includes(scratchRoot) || cwd.startsWith(scratchRoot);
      } catch {
        return false;
      }
    });
    expect(survivors).toEqual([]);
  });
});

describe("after an aborted judgment", () => {
  it("the next run sweeps the cgroups its killed measuring process could not remove", async () => {
    const { existsSync, mkdirSync, readFileSync } = await import("node:fs");
    const { sweepOrphanedGroups } = await import("../../src/sandbox/cgroup.js");
    const line = readFileSync("/proc/self/cgroup", "utf8").split("\n").find((l) => l.split(":")[1]?.split(",").includes("pids"));
    const parent = line === undefined ? null : `/sys/fs/cgroup/pids${line.split(":")[2]}`;
    if (parent === null || !existsSync(parent)) return; // no cgroup v1 here: nothing to leak
    const orphan = `${parent}/ranex-run-999999999-deadbeef0000`;
    mkdirSync(orphan);
    sweepOrphanedGroups();
    expect(existsSync(orphan)).toBe(false);
  });
});

describe("a change that adds a file over the size limit", () => {
  it("is not measured: diff.safety names the file, and the test claims say why they have no runs", async () => {
    const repo = TestRepo.init();
    repo.commit({
      ".github/ranex.yml": "version: 1\ntests:\n  command: python3 -m pytest -q --junitxml=\"$RANEX_JUNIT\" tests\nlimits: { file_bytes: 1024 }\nscope: { allow: ['src/**'] }\n",
      "src/__init__.py": "",
      "src/a.py": "A = 1\n",
      "tests/test_a.py": "from src.a import A\n\ndef test_a():\n    assert A == 1\n",
    }, "base");
    repo.branch("big");
    repo.commit({ "src/blob.bin": Buffer.alloc(4096, 7) }, "a big file");
    const judged = await judge({ source: repo.dir, base: "main", head: "big", task: null, dataDir: tempDir() });
    const claims = Object.fromEntries(judged.verdict.claims.map((c) => [c.name, c]));
    expect(judged.verdict.verdict).toBe("FAIL");
    expect(claims["diff.safety"]?.status).toBe("fail");
    expect(claims["diff.safety"]?.reason).toContain("src/blob.bin");
    expect(claims["tests.regression"]?.reason).toMatch(/^not measured: .*size limit of 1024 bytes.*src\/blob\.bin/);
    expect(judged.timings.measure).toBeUndefined();
  });
});

describe("laying out the trees", () => {
  it("replaces a base link that the head turned into a folder, writing nothing through it", async () => {
    const outside = tempDir("ranex-outside-");
    const repo = TestRepo.init();
    // On the base, `tests` is a link out of the tree; the head turns it into a folder with a new test
    // file, which the base+new run lays over the base: the link is removed, never written through.
    repo.commit({
      ".github/ranex.yml": "version: 1\ntests:\n  command: python3 -m pytest --junitxml=\"$RANEX_JUNIT\" tests\nscope: { allow: ['src/**'] }\nrequire: [tests.red_green]\n",
      "src/a.py": "A = 1\n",
      "tests": { symlink: outside },
    }, "base");
    repo.branch("head");
    repo.commit({ tests: null }, "drop the link");
    repo.commit({ "tests/test_new.py": "from src.a import B\n\ndef test_new():\n    assert B == 2\n", "src/a.py": "A = 1\nB = 2\n" }, "a new test");
    const judged = await judge({ source: repo.dir, base: "main", head: "head", task: null, dataDir: tempDir() });
    const redGreen = judged.verdict.claims.find((c) => c.name === "tests.red_green");
    expect(redGreen?.status, redGreen?.reason).toBe("pass");
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(outside)).toEqual([]);
  });

  it("lays out a path that is a file on the base and a folder on the head, and back", async () => {
    const repo = TestRepo.init();
    repo.commit({
      ".github/ranex.yml": "version: 1\ntests:\n  command: python3 -m pytest --junitxml=\"$RANEX_JUNIT\" tests\nscope: { allow: ['src/**'] }\nrequire: [tests.red_green]\n",
      "src/__init__.py": "",
      "src/a.py": "A = 1\n",
      "tests/test_a.py": "from src.a import A\n\ndef test_a():\n    assert A == 1\n",
      "tests/v2": "a file on the base\n",
      "tests/old/notes.txt": "a folder on the base\n",
    }, "base");
    repo.branch("head");
    repo.commit({ "tests/v2": null, "tests/old/notes.txt": null }, "clear the way");
    repo.commit({
      "src/b.py": "B = 2\n",
      "tests/v2/test_b.py": "from src.b import B\n\ndef test_b():\n    assert B == 2\n",
      "tests/old": "a file on the head\n",
    }, "a folder where a file was, a file where a folder was");
    const judged = await judge({ source: repo.dir, base: "main", head: "head", task: null, dataDir: tempDir() });
    const redGreen = judged.verdict.claims.find((c) => c.name === "tests.red_green");
    expect(redGreen?.status, redGreen?.reason).toBe("pass");
    expect(redGreen?.details.map((d) => d.message)).toContain("tests/v2/test_b.py::test_b: its file failed to load on base, passed on head");
  });
});
