import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshFixture } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { runCli } from "./run-cli.js";

// Found on npm/node-semver (issue 22): its .gitignore ignores `/*`, so the owner's task manifest,
// committed with `git add -A`, never reached the base, and `ranex task check` said only that the file
// "does not exist there". fixtures/repos/ignored-ranex.sh leaves the manifest where `git add -A` left it.
const IGNORED = "git ignores .ranex/tasks/mul.yml (.gitignore line 1: `/*`), so `git add -A` leaves it out and the gate, which reads it from the base commit, never sees it: commit it with `git add -f .ranex/tasks/mul.yml`, or add the line `!/.ranex/` to .gitignore after that rule";

describe("a gitignored .ranex/", () => {
  it("task check and judge say git ignores the task and how to commit it; init warns before any task is written", async () => {
    const repo = await freshFixture("ignored-ranex");
    const data = tempDir("ranex-data-");
    const checked = await runCli(["task", "check", "mul", "--repo", repo, "--data-dir", data]);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toBe(`ranex task check: no task 'mul' on ${git(repo, "rev-parse", "HEAD").slice(0, 12)}: .ranex/tasks/mul.yml does not exist there; ${IGNORED}\n`);

    const judged = await runCli(["judge", "--repo", repo, "--base", "main", "--head", "honest", "--task", "mul", "--data-dir", data]);
    expect(judged.code).toBe(1);
    expect(judged.stdout).toContain("no task 'mul' on");
    expect(judged.stderr).toBe(`note: ${IGNORED}\n`);

    const init = await runCli(["init", "--dir", repo, "--data-dir", data, "--no-try", "--force"]);
    expect(init.stdout).toContain("warning: git ignores .ranex/tasks/<id>.yml (.gitignore line 1: `/*`), so `git add -A` leaves it out and the gate, which reads it from the base commit, never sees it: commit it with `git add -f .ranex/tasks/<id>.yml`, or add the line `!/.ranex/` to .gitignore after that rule\n");
    // The policy is let back in (`!/.github/`): no warning about it.
    expect(init.stdout).not.toContain("git ignores .github/ranex.yml");

    // The fix it names works: with `!/.ranex/`, `git add -A` takes the task, and nothing is said.
    appendFileSync(join(repo, ".gitignore"), "!/.ranex/\n");
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "the task");
    const again = await runCli(["init", "--dir", repo, "--data-dir", data, "--no-try", "--force"]);
    expect(again.stdout).not.toContain("warning: git ignores");
    const fixed = await runCli(["task", "check", "mul", "--repo", repo, "--data-dir", data], 240_000);
    expect(fixed.stdout).toContain("red       tests/test_calc.py::test_mul: failed on the base");
    expect(fixed.code).toBe(0);
  }, 400_000);
});
