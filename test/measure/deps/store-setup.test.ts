import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prepareDependencies } from "../../../src/measure/deps/prepare.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { tempDir } from "../../helpers/git-repo.js";
import { PROFILE } from "../../sandbox/helpers.js";

// Storing what a setup made (issue 22): installed packages read-only in every run, what the
// repository's own scripts built copy-on-write, and nothing half stored. The setup makes a new
// top-level folder holding both (a workspace's packages/a/node_modules beside packages/a/dist) and a
// build/ folder of its own.
const SETUP = "mkdir -p packages/a/node_modules/x packages/a/dist build && echo 1 > packages/a/node_modules/x/index.js"
  + " && echo a > packages/a/dist/a.js && echo b > build/b.js";

async function prepare(cacheDir: string): Promise<Awaited<ReturnType<typeof prepareDependencies>>> {
  const base = tempDir("ranex-store-base-");
  writeFileSync(join(base, "package.json"), "{}\n");
  return prepareDependencies(createSandbox(PROFILE), { cacheDir, key: "sha256:ab12", maxBytes: 1 << 30, setupTree: { treeDir: base, readonly: [] } }, {
    command: SETUP, network: false, timeoutSeconds: 60, env: {},
  });
}

describe("storing a setup's result", () => {
  it("a new folder holding node_modules: the packages read-only, the rest of the folder copy-on-write", async () => {
    const made = await prepare(tempDir("ranex-store-cache-"));
    expect(made.failure).toBeNull();
    expect(made.overlays.map((o) => o.path)).toEqual(["packages/a/node_modules"]);
    expect(made.lowers).toHaveLength(1);
    const warm = made.lowers[0] ?? "";
    expect(existsSync(join(warm, "packages/a/dist/a.js"))).toBe(true);
    expect(existsSync(join(warm, "build/b.js"))).toBe(true);
    expect(existsSync(join(warm, "packages/a/node_modules"))).toBe(false);
  }, 120_000);

  it("a store that fails half way (its entry's place taken) fails closed: no run sees half-stored or read-only build outputs", async () => {
    const cache = tempDir("ranex-store-cache-");
    // What a full disk does half way: the entries were moved out of the setup's tree, the entry never written.
    mkdirSync(join(cache, "ab12", "junk"), { recursive: true });
    const made = await prepare(cache);
    expect(made.failure).toMatch(/^its result could not be stored in the dependency cache \(.+\), and a half-stored setup is never used: free space for the cache \(.+\) and judge again$/);
    expect(made.overlays).toEqual([]);
    expect(made.lowers).toEqual([]);
    expect(made.storeError).not.toBeNull();
  }, 120_000);
});
