import { mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evictLayers, failureText, IN_USE_MS, recentFailure, rememberFailure } from "../../../src/measure/deps/go-std-store.js";
import { goStdKnobs } from "../../../src/judge/deps-plan.js";
import { tempDir } from "../../helpers/git-repo.js";

// What the gate keeps beside its Go standard-library layers (issue 22): a failed build per
// toolchain key, believed for a bounded time; and at most N layers, the least recently used first.

function layer(dir: string, key: string, usedAgoMs: number, now: number): void {
  mkdirSync(join(dir, key, "layer"), { recursive: true });
  writeFileSync(join(dir, key, "manifest.json"), "{\"files\":{}}");
  writeFileSync(join(dir, key, "used"), "");
  const when = new Date(now - usedAgoMs);
  utimesSync(join(dir, key, "used"), when, when);
}

describe("the standard-library layers' store", () => {
  it("keeps at most N layers, the least recently used removed first, never this judgment's nor one in use", async () => {
    const dir = tempDir("ranex-go-std-");
    const now = Date.now();
    const day = 24 * 60 * 60 * 1000;
    layer(dir, "a-newest", IN_USE_MS + 1000, now);
    layer(dir, "b-older", 2 * day, now);
    layer(dir, "c-oldest", 9 * day, now);
    layer(dir, "d-mine", 30 * day, now);
    layer(dir, "e-in-use", 60_000, now);
    mkdirSync(join(dir, ".go-env"));
    expect(await evictLayers(dir, 2, new Set(["d-mine"]), now)).toEqual(["b-older", "c-oldest"]);
    expect(readdirSync(dir).sort()).toEqual([".go-env", "a-newest", "d-mine", "e-in-use"]);
  });

  it("a failure is believed until the retry time has passed, then the build is tried again", async () => {
    const dir = tempDir("ranex-go-std-");
    await rememberFailure(dir, "k1", "the gate's build of the Go standard library failed: -race requires cgo");
    const hour = 60 * 60 * 1000;
    const failure = await recentFailure(dir, "k1", hour);
    expect(failure?.reason).toContain("-race requires cgo");
    expect(failureText(failure ?? { reason: "", at: 0 }, hour)).toMatch(/requires cgo \(at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; not tried again before .*RANEX_GO_STD_RETRY_MINUTES, or until the toolchain changes\)$/);
    expect(await recentFailure(dir, "k1", hour, Date.now() + hour + 1)).toBeNull();
    // Another toolchain is another key: nothing is believed of it.
    expect(await recentFailure(dir, "k2", hour)).toBeNull();
  });

  it("the operator's knobs", () => {
    expect(goStdKnobs({})).toEqual({ retryMs: 3_600_000, keep: 4 });
    expect(goStdKnobs({ RANEX_GO_STD_RETRY_MINUTES: "5", RANEX_GO_STD_KEEP: "2" })).toEqual({ retryMs: 300_000, keep: 2 });
    expect(goStdKnobs({ RANEX_GO_STD_RETRY_MINUTES: "x", RANEX_GO_STD_KEEP: "-1" })).toEqual({ retryMs: 3_600_000, keep: 4 });
  });
});
