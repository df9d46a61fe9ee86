import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { distinctRuns } from "../../src/measure/run-report.js";
import { tempDir } from "../helpers/git-repo.js";
import { READ_VALUE as readValue, cacheEntries, depsRepo } from "../helpers/deps-repo.js";

// "Dependencies installed once" (issue 15): the setup runs once per dependency key on a clean copy
// of the base, and what it created is shown read-only to every run of this and later judgments.

const setupLines = (j: Judgment): string[] => distinctRuns(j.verdict.claims).map((r) => `${r.run}: ${r.setup ?? "(own setup)"}`);

describe("dependencies installed once", () => {
  afterEach(() => {
    delete process.env.RANEX_DEPS_CACHE_MB;
  });

  it("runs setup once; base and head see the deps; the next judgment is a cache hit", async () => {
    const repo = depsRepo();
    const dataDir = tempDir();
    const first = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
    expect(first.verdict.verdict, JSON.stringify(first.verdict.reasons)).toBe("CANDIDATE");
    expect(first.timings.setup).toBeGreaterThan(0);
    expect(first.timings["setup-cached"]).toBeUndefined();
    // Four runs, one setup: every run names the same once-only setup.
    const lines = setupLines(first);
    expect(lines.map((l) => l.split(":")[0]).sort()).toEqual(["base", "base+new", "head", "head+new"]);
    for (const line of lines) expect(line).toMatch(/: ran once for all runs in [\d.]+ s \(key sha256:[0-9a-f]{64}\)$/);
    expect(cacheEntries(dataDir)).toHaveLength(1);

    const second = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
    expect(second.verdict.verdict).toBe("CANDIDATE");
    expect(second.timings["setup-cached"]).toBeDefined();
    expect(second.timings.setup).toBeUndefined();
    const key = /key (sha256:[0-9a-f]{64})/.exec(lines[0] ?? "")?.[1];
    // A hit reads as one (issue 15): every run, the base read back from the base cache too, says the
    // dependencies came from the cache and when they were installed; none says "ran once" again.
    const hit = new RegExp(`: dependencies from cache \\(installed once in [\\d.]+ s on \\d{4}-\\d\\d-\\d\\d, key ${key}\\)$`);
    expect(setupLines(second).map((l) => l.split(":")[0]).sort()).toEqual(["base", "base+new", "head", "head+new"]);
    for (const line of setupLines(second)) expect(line).toMatch(hit);
  }, 180_000);

  it("shows the deps read-only: a test that writes into them fails, and the cache keeps its content", async () => {
    const repo = depsRepo();
    repo.branch("tamper");
    repo.commit({
      "src/value.py": `${readValue}\ndef spoil():\n    with open('node_modules/x/value.txt', 'w') as f:\n        f.write('666')\n`,
      "tests/test_spoil.py": "import os\nfrom src.value import spoil, value\n\ndef test_spoil():\n    spoil()\n    assert value() == '666'\n",
    }, "tamper");
    const dataDir = tempDir();
    const tampered = await judge({ source: repo.dir, base: "main", head: "tamper", task: null, dataDir });
    expect(tampered.verdict.verdict).toBe("FAIL");
    const redGreen = tampered.verdict.claims.find((c) => c.name === "tests.red_green");
    expect(JSON.stringify(redGreen)).toMatch(/test_spoil/);
    const [entry] = cacheEntries(dataDir);
    expect(readFileSync(join(dataDir, "deps", entry ?? "", "files/node_modules/x/value.txt"), "utf8")).toBe("7\n");
    // Adding files next to the deps fails too (the whole entry is read-only).
    const honest = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
    expect(honest.verdict.verdict).toBe("CANDIDATE");
    expect(honest.timings["setup-cached"]).toBeDefined();
  }, 180_000);

  it.each([
    ["fails", "echo installing; echo 'E: no such package' >&2; exit 3", 60, /setup failed \(exit 3\):\s+installing\s+E: no such package/],
    ["times out", "mkdir -p node_modules/x && sleep 30", 3, /setup timed out after [\d.]+ s/],
  ])("a setup that %s is not cached, and every run says why", async (_what, setup, timeout, why) => {
    const repo = depsRepo(setup, timeout);
    const dataDir = tempDir();
    const first = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
    expect(first.verdict.verdict).toBe("FAIL");
    const regression = first.verdict.claims.find((c) => c.name === "tests.regression");
    expect(regression?.status).toBe("fail");
    expect(`${regression?.reason} ${JSON.stringify(regression?.details)}`).toMatch(why);
    expect(first.verdict.claims.find((c) => c.name === "tests.red_green")?.status).not.toBe("pass");
    for (const run of distinctRuns(first.verdict.claims)) expect(run.ok).toBe(false);
    expect(cacheEntries(dataDir)).toEqual([]);
    const again = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
    expect(again.timings.setup).toBeGreaterThan(0);
    expect(again.timings["setup-cached"]).toBeUndefined();
  }, 180_000);

  it("a new base with another lock file misses; the cache stays within its size, least recently used out", async () => {
    const repo = depsRepo();
    const dataDir = tempDir();
    const first = await judge({ source: repo.dir, base: "main", head: "honest", task: null, dataDir });
    expect(first.timings.setup).toBeGreaterThan(0);
    const [oldEntry] = cacheEntries(dataDir);

    // A base that changes only code keeps the key.
    repo.commit({ "src/other.py": "X = 1\n" }, "code only");
    repo.branch("on-code");
    repo.commit({ "src/other.py": "X = 1\nY = 2\n", "tests/test_other.py": "from src.other import Y\n\ndef test_y():\n    assert Y == 2\n" }, "y");
    repo.checkout("main");
    const sameKey = await judge({ source: repo.dir, base: "main", head: "on-code", task: null, dataDir });
    expect(sameKey.timings["setup-cached"]).toBeDefined();

    // A new lock file: a new key, a new setup. A cache of one byte keeps only the entry in use.
    repo.commit({ "requirements.txt": "8\n", "tests/test_value.py": "from src.value import value\n\ndef test_value():\n    assert value() == '8'\n" }, "bump");
    repo.branch("on-bump");
    repo.commit({ "src/other.py": "X = 1\nZ = 3\n", "tests/test_z.py": "from src.other import Z\n\ndef test_z():\n    assert Z == 3\n" }, "z");
    repo.checkout("main");
    process.env.RANEX_DEPS_CACHE_MB = "0.000001";
    const bumped = await judge({ source: repo.dir, base: "main", head: "on-bump", task: null, dataDir });
    expect(bumped.verdict.verdict, JSON.stringify(bumped.verdict.reasons)).toBe("CANDIDATE");
    expect(bumped.timings.setup).toBeGreaterThan(0);
    const entries = cacheEntries(dataDir);
    expect(entries).toHaveLength(1);
    expect(entries).not.toContain(oldEntry);
  }, 240_000);
});
