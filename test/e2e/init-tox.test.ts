import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { initFixture } from "./init-fixture.js";

// Found on tkem/cachetools: tox.ini's [testenv] sets THREADING_TESTS=1 and its threading tests skip
// without it, so under init's command they were skipped on base and head alike: a PR could break
// them and no claim would see it. fixtures/repos/tox-env.sh has the same shape.

describe("tox-env: a suite that needs the environment tox gives it", () => {
  it("init puts tox's setenv before the command (tox substitutions left out); the try runs every test", async () => {
    const { repo, init } = await initFixture("tox-env", [], 240_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("tests/test_calc.py  2 (2 passed)");
    const policy = readFileSync(join(repo, ".github/ranex.yml"), "utf8");
    expect(policy).toContain("  command: 'SLOW_TESTS=1 python3 -m pytest --junitxml=\"$RANEX_JUNIT\" tests'");
    expect(policy).toContain("tox.ini's [testenv] setenv");
  }, 300_000);
});
