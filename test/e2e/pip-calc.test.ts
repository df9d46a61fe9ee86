import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { cacheEntries } from "../helpers/deps-repo.js";
import { initFixture } from "./init-fixture.js";
import { parseVerdict, runCli } from "./run-cli.js";

// Python with packages from the index (issue 22): fixtures/repos/pip-calc.sh (and uv-calc.sh), whose code and tests
// import attrs from requirements.txt. `ranex init` writes a setup that installs it into .venv (the
// only step with network), tries it, and the policy it wrote is committed unmodified; then the real
// CLI judges each head, the virtualenv coming from the dependency cache the try filled.
const run = promisify(execFile);

describe("pip-calc: a Python repository whose tests need a package from the index", () => {
  it("init writes a virtualenv setup; an honest fix is CANDIDATE, an edited frozen test FAIL unsafe, no fix FAIL", async () => {
    const repo = join(tempDir(), "pip-calc");
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
    await run("bash", [join(FIXTURES_DIR, "pip-calc.sh"), repo], { env });
    const data = tempDir("ranex-data-");

    const init = await runCli(["init", "--dir", repo, "--data-dir", data], 600_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("runner: pytest (tests/test_shapes.py is a pytest test file; requirements.txt installed into .venv by setup)");
    expect(init.stdout).toMatch(/setup [\d.]+ s \(installed once, now cached\)/);
    expect(init.stdout).toContain("tests/test_shapes.py  3 (2 passed, 1 failed)");
    const policy = readFileSync(join(repo, ".github/ranex.yml"), "utf8");
    expect(policy).toContain("  command: '.venv/bin/python -m pytest --junitxml=\"$RANEX_JUNIT\" tests'");
    expect(policy).toContain("  setup: 'python3 -m venv --system-site-packages .venv && .venv/bin/pip install --disable-pip-version-check --no-input --quiet -r requirements.txt'");
    expect(policy).toContain("  setup_network: true");
    expect(cacheEntries(data)).toHaveLength(1);
    git(repo, "add", ".github/ranex.yml");
    git(repo, "commit", "-q", "-m", "ranex init");

    const judged = async (head: string) => parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--task", "scale", "--data-dir", data, "--json"], 600_000));
    const honest = await judged("honest");
    expect(honest.verdict, JSON.stringify(honest.claims.filter((c) => c.status !== "pass"))).toBe("CANDIDATE");
    expect(honest.claims.find((c) => c.name === "tests.stable")?.details.map((d) => d.message))
      .toContain("tests/test_shapes.py::test_scale: base failed, failed, failed; head passed, passed, passed");
    const edited = await judged("edit-test");
    expect(edited.verdict).toBe("FAIL");
    expect(edited.class).toBe("unsafe");
    expect(edited.claims.find((c) => c.name === "diff.frozen")?.reason).toContain("tests/test_shapes.py");
    const noFix = await judged("no-fix");
    expect(noFix.verdict).toBe("FAIL");
    expect(noFix.claims.find((c) => c.name === "tests.red_green")?.reason).toBe("targets that do not pass on head: tests/test_shapes.py::test_scale");
    // One install served the try and every judgment.
    expect(cacheEntries(data)).toHaveLength(1);
  }, 900_000);
});

/** Builds a fixture with a lock file and runs `ranex init` on it: the lock is synced into .venv in setup and the try finds its one test. */
async function initLocked(name: string, lock: string): Promise<{ repo: string; data: string }> {
  const repo = join(tempDir(), name);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
  await run("bash", [join(FIXTURES_DIR, `${name}.sh`), repo], { env });
  const data = tempDir("ranex-data-");
  const init = await runCli(["init", "--dir", repo, "--data-dir", data], 900_000);
  expect(init.code, init.stdout + init.stderr).toBe(0);
  expect(init.stdout).toContain(`${lock} installed into .venv by setup`);
  expect(init.stdout).toMatch(/setup [\d.]+ s \(installed once, now cached\)/);
  expect(init.stdout).toContain("tests/test_pkg.py  1 (1 passed)");
  return { repo, data };
}

describe("uv-calc: a Python project locked with uv", () => {
  it("init installs uv from the index and syncs the lock into .venv in setup; the try runs the tests with it", async () => {
    const { repo } = await initLocked("uv-calc", "uv.lock");
    expect(readFileSync(join(repo, ".github/ranex.yml"), "utf8")).toContain("/tmp/ranex-uv/bin/uv sync --frozen --all-extras'");
  }, 900_000);
});

// Found on frostming/marko: pdm from the index, unpinned, pulled hishel 2.0, which pdm 2.29 cannot
// import ("module 'hishel' has no attribute 'SyncSqliteStorage'"), so every pdm setup failed.
describe("pdm-calc: a Python project locked with pdm", () => {
  it("init installs pdm with its own dependencies pinned and syncs the lock into .venv in setup; the try runs the tests with it; an honest head is CANDIDATE", async () => {
    const { repo, data } = await initLocked("pdm-calc", "pdm.lock");
    expect(readFileSync(join(repo, ".github/ranex.yml"), "utf8")).toContain('/tmp/ranex-pdm/bin/pdm sync --no-self -G :all\'');
    // pytest comes from the lock, so it lives in .venv: formatting the failing canaries' tracebacks
    // there is installed code at work, not the change's tampering (it FAILed unsafe on frostming/marko).
    git(repo, "add", ".github/ranex.yml");
    git(repo, "commit", "-q", "-m", "ranex init");
    const honest = parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", "honest", "--data-dir", data, "--json"], 900_000));
    expect(honest.verdict, JSON.stringify(honest.claims.filter((c) => c.status !== "pass"))).toBe("CANDIDATE");
  }, 1_800_000);
});

// Found on python-humanize/humanize: its test extra is written with TOML dotted keys under [project]
// (`optional-dependencies.tests = [...]`), which init's pattern did not see, so it wrote no setup and
// every test failed to import; and its version comes from git tags (hatch-vcs), so `pip install -e .`
// in setup's copy of the base, which has no .git, stopped at "unable to detect version".
describe("hatch-vcs-calc: a src layout versioned by git tags, its test extra in dotted keys", () => {
  it("init installs the project with its test extra under a pretended version; the try runs its tests", async () => {
    const { repo, init } = await initFixture("hatch-vcs-calc", [], 900_000);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("pyproject.toml declares dependencies installed into .venv by setup");
    expect(init.stdout).toContain("tests/test_width.py  2 (2 passed)");
    expect(readFileSync(join(repo, ".github/ranex.yml"), "utf8"))
      .toContain("SETUPTOOLS_SCM_PRETEND_VERSION=0.0.0 .venv/bin/pip install --disable-pip-version-check --no-input --quiet -e ''.[tests]''");
  }, 900_000);
});
