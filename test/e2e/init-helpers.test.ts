import { describe, expect, it } from "vitest";
import { fixtureRepo } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { runCli } from "./run-cli.js";

// `ranex init` lists the frozen tests' helpers (issue 19): read from its try's provenance record, as
// a judgment reads its base run's, so what init lists is what the first judgment freezes.

describe("ranex init on a src layout that ships its own test helper", () => {
  it("lists src/shapes/testing.py as frozen by default, with the test that imports it and where it asserts", async () => {
    const repo = tempDir("ranex-init-helpers-");
    git(repo, "clone", "-q", await fixtureRepo("python-helpers"), "repo");
    const dir = `${repo}/repo`;
    git(dir, "rm", "-q", ".github/ranex.yml");
    git(dir, "-c", "user.name=owner", "-c", "user.email=owner@example.invalid", "commit", "-q", "-m", "no policy yet");
    const init = await runCli(["init", "--dir", dir, "--data-dir", tempDir("ranex-data-")], 240_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain(
      "test helpers frozen by default (the frozen tests import them and they assert; release one with tests.helpers.release): 1\n"
      + "  src/shapes/testing.py: imported by tests/test_average.py, tests/test_stats.py; line 6: assert abs(actual - expected) <= tol, f\"{actual!r} is not w…\n",
    );
    // The module that asserts but that no test imports is not listed.
    expect(init.stdout).not.toContain("src/shapes/checks.py");
  }, 300_000);
});
