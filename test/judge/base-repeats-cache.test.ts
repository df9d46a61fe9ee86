import { describe, expect, it } from "vitest";
import type { BaseCacheKey } from "../../src/judge/base-cache.js";
import { readBaseRepeats, writeBaseRepeats } from "../../src/judge/base-repeats-cache.js";
import type { SuiteRun } from "../../src/measure/report-types.js";
import type { RunResult } from "../../src/sandbox/types.js";
import { tempDir } from "../helpers/git-repo.js";

// tests.stable's repeats of the task targets on the base, cached with the base run: read back only
// for the same key, the same ids and the same count, and only when every repeat ran exactly those ids.
const finished: RunResult = {
  exitCode: 1, signal: null, timedOut: false, durationMs: 1200, outputTail: "1 failed", outputBytes: 8,
  outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null,
};
const report = { cases: [], digest: "sha256:x", duplicates: [], loadErrors: [], notes: [] };
const ids = ["core/ex.CalcTest#muls"];
const repeat: SuiteRun = { label: "base", setup: null, command: finished, report, reportError: null, selected: ids };
const key: BaseCacheKey = { baseTree: "a".repeat(40), policy: "p1", sandbox: "s1", gate: "1.0.0" };

describe("the base's repeats, cached with the base run", () => {
  it("answers the same key, ids and count; never another", async () => {
    const dir = tempDir();
    expect(await readBaseRepeats(dir, key, { ids, count: 2 })).toBeNull();
    // A repeat of the targets with a regression suspect is not a repeat of the targets alone: left out.
    const withSuspect = { ...repeat, selected: [...ids, "core/ex.CalcTest#adds"] };
    expect(await writeBaseRepeats(dir, key, { ids, count: 2 }, [repeat, withSuspect, repeat])).toBeNull();
    expect(await readBaseRepeats(dir, key, { ids, count: 2 })).toEqual([repeat, repeat]);
    expect(await readBaseRepeats(dir, key, { ids, count: 3 })).toBeNull();
    expect(await readBaseRepeats(dir, key, { ids: ["core/ex.CalcTest#adds"], count: 2 })).toBeNull();
    expect(await readBaseRepeats(dir, { ...key, baseTree: "b".repeat(40) }, { ids, count: 2 })).toBeNull();
    expect(await readBaseRepeats(dir, { ...key, policy: "p2" }, { ids, count: 2 })).toBeNull();
  });

  it.each<[string, SuiteRun[], RegExp]>([
    ["fewer repeats than asked", [repeat], /1 repeats made, 2 asked for/],
    ["a repeat that timed out", [repeat, { ...repeat, command: { ...finished, timedOut: true, exitCode: null, signal: "SIGKILL" } }], /timed out/],
    ["a repeat whose selection was lost (the whole suite ran)", [repeat, { ...repeat, selectionLost: "the run of the selection did not report it" }], /could not select/],
    ["a repeat of another side", [repeat, { ...repeat, label: "head" }], /only the clean base/],
  ])("does not cache %s", async (_what, runs, why) => {
    const dir = tempDir();
    expect(await writeBaseRepeats(dir, key, { ids, count: 2 }, runs)).toMatch(why);
    expect(await readBaseRepeats(dir, key, { ids, count: 2 })).toBeNull();
  });
});
