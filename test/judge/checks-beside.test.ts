import { execFileSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { fixtureRepo } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";

// With the base cached only the head runs, so the policy's checks get a copy of the head of their own
// and run beside the head run (src/measure/measure.ts) instead of before its tests. What they find
// must not change.
describe("checks beside the head run", () => {
  const check = (j: Awaited<ReturnType<typeof judge>>) => j.verdict.claims.find((c) => c.name === "check:no-todo");
  const withoutTime = (reason: string | undefined) => reason?.replace(/ in [\d.]+ s/, "");

  /** python-calc with a head `todo-div`: the honest div plus a TODO the no-todo check refuses. */
  async function repoWithTodo(): Promise<string> {
    const dir = join(tempDir(), "python-calc");
    const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { env: { ...process.env, GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@example.com", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@example.com" } });
    execFileSync("git", ["clone", "-q", await fixtureRepo("python-calc"), dir]);
    git("checkout", "-q", "-b", "todo-div", "origin/honest-task");
    appendFileSync(join(dir, "src/calc.py"), "\n# TODO: rounding\n");
    git("commit", "-qam", "calc: note");
    git("branch", "-q", "-f", "main", "origin/main");
    git("branch", "-q", "honest-task", "origin/honest-task");
    return dir;
  }

  it.each([
    ["todo-div", "FAIL", "fail"],
    ["honest-task", "CANDIDATE", "pass"],
  ])("%s: the same verdict warm (checks on their own tree) as cold", async (head, verdict, status) => {
    const repo = await repoWithTodo();
    const dataDir = tempDir();
    const cold = await judge({ source: repo, base: "main", head, task: "div", dataDir });
    const warm = await judge({ source: repo, base: "main", head, task: "div", dataDir });
    expect(warm.timings["base-cached"]).toBe(0);
    expect(warm.timings.checks).toBeGreaterThan(0);
    for (const j of [cold, warm]) {
      expect(j.verdict.verdict).toBe(verdict);
      expect(check(j)?.status).toBe(status);
    }
    expect(withoutTime(check(warm)?.reason)).toBe(withoutTime(check(cold)?.reason));
  }, 240_000);
});
