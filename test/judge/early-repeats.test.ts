import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { fixtureRepo } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";

// tests.stable's repeats of the task's targets start beside the head run when the base came from the
// cache (src/measure/repeats.ts): on the cached base's tree and on a pristine copy of the head. The
// second judgment of each pair below is that warm case; what it finds must not change. They start
// there only when a core is free beside the head run (src/judge/idle-cores.ts): fixed here.
describe("early repeats of the task's targets", () => {
  const stableDetail = (j: Awaited<ReturnType<typeof judge>>) =>
    j.verdict.claims.find((c) => c.name === "tests.stable")?.details.map((d) => d.message);

  it("still catch a target that is right on a tree's first run only, warm as cold", async () => {
    const repo = await fixtureRepo("python-calc");
    const dataDir = tempDir();
    const request = { source: repo, base: "main-strict", head: "flaky-div", task: "div", dataDir, idleCores: () => 2 };
    const cold = await judge(request);
    const warm = await judge(request);
    expect(cold.timings["repeats-early"]).toBeUndefined();
    expect(warm.timings["base-cached"]).toBe(0);
    expect(warm.timings["repeats-early"]).toBeGreaterThan(0);
    for (const j of [cold, warm]) {
      expect(j.verdict.verdict).toBe("FAIL");
      expect(j.verdict.claims.find((c) => c.name === "tests.stable")?.status).toBe("fail");
    }
    // Early, the head's repeats run on their own copy: one after another, so the second run of that
    // tree is the one that goes wrong.
    expect(stableDetail(warm)).toEqual(["tests/test_div.py::test_div: base failed, failed, failed; head passed, passed, failed"]);
  }, 240_000);

  it("give an honest target its three outcomes on each side, and the verdict of a cold judgment", async () => {
    const repo = await fixtureRepo("python-calc");
    const dataDir = tempDir();
    const request = { source: repo, base: "main-strict", head: "needed-div", task: "div", dataDir, idleCores: () => 2 };
    const cold = await judge(request);
    const warm = await judge(request);
    expect(warm.timings["repeats-early"]).toBeGreaterThan(0);
    expect(warm.verdict.verdict).toBe("CANDIDATE");
    expect(cold.verdict.verdict).toBe("CANDIDATE");
    expect(stableDetail(warm)).toEqual(["tests/test_div.py::test_div: base failed, failed, failed; head passed, passed, passed"]);
    expect(stableDetail(warm)).toEqual(stableDetail(cold));
    // No core free beside the head run (a busy machine): the repeats wait for it, and say the same.
    const busy = await judge({ ...request, idleCores: () => 0.4 });
    expect(busy.timings["base-cached"]).toBe(0);
    expect(busy.timings["repeats-early"]).toBeUndefined();
    expect(busy.timings.repeats).toBeGreaterThan(0);
    expect(busy.verdict.verdict).toBe("CANDIDATE");
    expect(stableDetail(busy)).toEqual(stableDetail(cold));
  }, 240_000);
});
