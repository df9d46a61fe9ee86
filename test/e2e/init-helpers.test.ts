import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureRepo } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { REPO_ROOT, runCli } from "./run-cli.js";

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

// jest and vitest load test files with their own module systems: Node's preload never sees their
// imports, so the helpers come from the frozen test files' own import statements. The runners come
// from this project's node_modules/.bin (toolchain.path), as in init-flow.test.ts.
const NEAR_CJS = '"use strict";\nconst assert = require("node:assert");\nexports.near = (a, b) => assert.ok(Math.abs(a - b) < 1e-9, `${a} is not ${b}`);\n';
const NEAR_ESM = 'import assert from "node:assert";\nexport const near = (a, b) => assert.ok(Math.abs(a - b) < 1e-9, `${a} is not ${b}`);\n';
const RUNNERS = [
  {
    runner: "jest", type: "commonjs", asserts: "line 3: exports.near",
    files: {
      "support/near.js": NEAR_CJS, "src/half.js": '"use strict";\nexports.half = (x) => x / 2;\n',
      "test/half.test.js": '"use strict";\nconst { near } = require("../support/near");\nconst { half } = require("../src/half.js");\ntest("half", () => near(half(3), 1.5));\n',
    },
  },
  {
    runner: "vitest", type: "module", asserts: "line 2: export const near",
    files: {
      "support/near.js": NEAR_ESM, "src/half.js": "export const half = (x) => x / 2;\n",
      "test/half.test.js": 'import { test } from "vitest";\nimport { near } from "../support/near.js";\nimport { half } from "../src/half.js";\ntest("half", () => near(half(3), 1.5));\n',
    },
  },
];

describe.each(RUNNERS)("ranex init on a $runner repository whose test imports a helper", ({ runner, type, asserts, files }) => {
  it("lists the helper as frozen by default, though the record never sees the runner's imports", async () => {
    const dir = tempDir(`ranex-init-${runner}-helpers-`);
    git(dir, "init", "-q", "-b", "main");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `${runner}-helpers`, private: true, type, scripts: { test: runner === "jest" ? "jest" : "vitest run" } }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    git(dir, "add", "-A");
    git(dir, "-c", "user.name=owner", "-c", "user.email=owner@example.invalid", "commit", "-q", "-m", "half, with a near() helper");
    const init = await runCli(["init", "--dir", dir, "--data-dir", tempDir("ranex-data-"), "--toolchain", join(REPO_ROOT, "node_modules", ".bin")], 240_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toMatch(/tests found: 1 in 1 file/);
    expect(init.stdout).toContain(
      "test helpers frozen by default (the frozen tests import them and they assert; release one with tests.helpers.release): 1\n"
      + `  support/near.js: imported by test/half.test.js; ${asserts}`,
    );
    expect(init.stdout).not.toContain("src/half.js: imported by");
  }, 300_000);
});
