import { describe, expect, it } from "vitest";
import { readBaseCache, writeBaseCache, type BaseCacheKey } from "../../src/judge/base-cache.js";
import type { SuiteRun } from "../../src/measure/report-types.js";
import type { RunResult } from "../../src/sandbox/types.js";
import { tempDir } from "../helpers/git-repo.js";

const finished: RunResult = {
  exitCode: 1, signal: null, timedOut: false, durationMs: 1200, outputTail: "1 failed", outputBytes: 8,
  outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null,
};
const report = { cases: [], digest: "sha256:x", duplicates: [], loadErrors: [], notes: [] };
const run: SuiteRun = { label: "base", setup: null, command: finished, report, reportError: null };
const key: BaseCacheKey = { baseTree: "a".repeat(40), policy: "p1", sandbox: "s1", gate: "1.0.0" };

describe("base-run cache", () => {
  it("answers a second judgment on the same key", async () => {
    const dir = tempDir();
    expect(await readBaseCache(dir, key)).toBeNull();
    expect(await writeBaseCache(dir, key, run)).toBeNull();
    expect(await readBaseCache(dir, key)).toEqual(run);
  });

  it.each<[string, Partial<BaseCacheKey>]>([
    ["another base tree", { baseTree: "b".repeat(40) }],
    ["another policy", { policy: "p2" }],
    ["another sandbox profile", { sandbox: "s2" }],
    ["another gate version", { gate: "1.0.1" }],
  ])("never answers for %s", async (_what, change) => {
    const dir = tempDir();
    await writeBaseCache(dir, key, run);
    expect(await readBaseCache(dir, { ...key, ...change })).toBeNull();
  });

  it.each<[string, SuiteRun, RegExp]>([
    ["timed out", { ...run, command: { ...finished, timedOut: true, exitCode: null, signal: "SIGKILL" } }, /timed out/],
    ["never ran", { ...run, command: null }, /did not run/],
    ["left no readable report", { ...run, report: null, reportError: "no JUnit report at $RANEX_JUNIT" }, /no readable report/],
    ["hit a limit", { ...run, command: { ...finished, violation: "the run hit its memory limit" } }, /sandbox rule or limit/],
    ["was killed", { ...run, command: { ...finished, exitCode: null, signal: "SIGKILL" } }, /killed/],
    ["failed its setup", { ...run, setup: { ...finished, exitCode: 1 } }, /setup failed/],
    ["is not the clean base run", { ...run, label: "base+new" }, /only the clean base/],
  ])("does not cache a run that %s", async (_what, bad, why) => {
    const dir = tempDir();
    expect(await writeBaseCache(dir, key, bad)).toMatch(why);
    expect(await readBaseCache(dir, key)).toBeNull();
  });
});
