import { describe, expect, it } from "vitest";
import { readBaseCache, writeBaseCache, type BaseCacheKey } from "../../src/judge/base-cache.js";
import type { SuiteRun } from "../../src/measure/report-types.js";
import type { RunResult } from "../../src/sandbox/types.js";
import { tempDir } from "../helpers/git-repo.js";

const finished: RunResult = {
  exitCode: 1, signal: null, timedOut: false, durationMs: 1200, outputTail: "1 failed", outputBytes: 8,
  outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null,
};
const run: SuiteRun = { label: "base", setup: null, command: finished, report: null, reportError: "no report" };
const key: BaseCacheKey = { base: "a".repeat(40), overlay: "o1", policy: "p1", sandbox: "s1" };

describe("base-run cache", () => {
  it("answers a second judgment on the same key", async () => {
    const dir = tempDir();
    expect(await readBaseCache(dir, key)).toBeNull();
    await writeBaseCache(dir, key, run);
    expect(await readBaseCache(dir, key)).toEqual(run);
  });

  it.each<[string, Partial<BaseCacheKey>]>([
    ["another base", { base: "b".repeat(40) }],
    ["other new test files", { overlay: "o2" }],
    ["another policy", { policy: "p2" }],
    ["another sandbox profile", { sandbox: "s2" }],
  ])("never answers for %s", async (_what, change) => {
    const dir = tempDir();
    await writeBaseCache(dir, key, run);
    expect(await readBaseCache(dir, { ...key, ...change })).toBeNull();
  });

  it("does not cache a run that timed out or never ran", async () => {
    const dir = tempDir();
    await writeBaseCache(dir, key, { ...run, command: { ...finished, timedOut: true, exitCode: null } });
    expect(await readBaseCache(dir, key)).toBeNull();
    await writeBaseCache(dir, key, { ...run, command: null });
    expect(await readBaseCache(dir, key)).toBeNull();
  });
});
