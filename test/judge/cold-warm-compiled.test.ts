import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { WARM_DIR } from "../../src/measure/deps/cache.js";
import { initPolicyRepo } from "../helpers/init-policy-repo.js";
import { tempDir } from "../helpers/git-repo.js";

// A verdict never depends on the cache (issue 22), for compiled languages too. Go's setup warms a
// build cache and Cargo's a target folder; both are stored as the warm layer and lie beneath every
// run's tree (src/measure/deps/cache.ts). The first judgment below runs that setup on the base after
// the head's tree was written out; the second has the dependencies and the base cached. The attack
// on the warm layer's dates (cargo taking the base's build for the head's) is shown on its own, where
// the order is certain: test/measure/deps/warm-stale.test.ts.
const initRepo = (name: string): Promise<string> => initPolicyRepo(name, ["honest", "no-fix"]);

const claims = (j: Judgment): string[] =>
  j.verdict.claims.filter((c) => c.name !== "approval.independent").map((c) => `${c.name}: ${c.status}: ${c.reason.replace(/ in [\d.]+ s/g, "")}`);

/** The warm layer's folders the dependency cache holds (what the runs were given beneath their trees). */
function warmLayers(dataDir: string): string[] {
  const cache = join(dataDir, "deps");
  return readdirSync(cache).filter((key) => !key.startsWith(".")).flatMap((key) => {
    const warm = join(cache, key, "warm", WARM_DIR);
    return existsSync(warm) ? readdirSync(warm) : [];
  });
}

describe.each([
  { name: "go-calc", layer: "go-build" },
  { name: "rust-calc", layer: "cargo-target" },
])("$name: the same head gets the same claims cold and warm, with the setup's build beneath every tree", ({ name, layer }) => {
  it("an honest fix is a CANDIDATE with the setup running in its own judgment, and again warm; no fix FAILs both ways", async () => {
    const repo = await initRepo(name);
    const dataDir = tempDir("ranex-data-");
    const honest = { source: repo, base: "main", head: "honest", task: "mul", dataDir };
    const cold = await judge(honest);
    expect(warmLayers(dataDir)).toEqual([layer]);
    const warm = await judge(honest);
    expect(cold.timings.setup).toBeGreaterThan(0);
    expect(warm.timings["setup-cached"]).toBeGreaterThanOrEqual(0);
    expect(warm.timings["base-cached"]).toBe(0);
    expect(cold.verdict.verdict, cold.verdict.reasons.join("; ")).toBe("CANDIDATE");
    expect(claims(warm)).toEqual(claims(cold));

    // The base's build is in the warm layer: a head that does not fix mul is still read as not fixed.
    const noFix = { ...honest, head: "no-fix" };
    const noFixWarm = await judge(noFix);
    expect(noFixWarm.verdict.verdict).toBe("FAIL");
    expect(noFixWarm.verdict.claims.find((c) => c.name === "tests.red_green")?.status).toBe("fail");
  }, 1_500_000);
});
