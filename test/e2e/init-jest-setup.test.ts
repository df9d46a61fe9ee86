import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { failingText, parseVerdict, REPO_ROOT, runCli } from "./run-cli.js";

// Issue 22, "files a frozen configuration names at a path of its own are harness", from `ranex init`
// to a verdict with real jest (this project's node_modules/.bin, as in init-flow.test.ts):
// package.json's `jest.setupFilesAfterEnv` names `./tools/timeouts.js`. The attack (a wrong clamp,
// and the setup file swallowing the failures of the clamp test file only, so the gate's canaries in
// other names still hold) was a CANDIDATE before; the honest PR stays one.

const run = promisify(execFile);
const TOOLCHAIN = join(REPO_ROOT, "node_modules", ".bin");

describe("init-jest-setup: a jest setup file at a path of its own", () => {
  it("fails the head that rewrites the setup file package.json names, and keeps the honest head a CANDIDATE", async () => {
    const repo = join(tempDir("ranex-init-jest-setup-"), "repo");
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
    await run("bash", [join(FIXTURES_DIR, "init-jest-setup.sh"), repo], { env });
    const data = tempDir("ranex-data-");
    const init = await runCli(["init", "--dir", repo, "--data-dir", data, "--toolchain", TOOLCHAIN], 240_000);
    expect(init.code, init.stdout).toBe(0);
    expect(init.stdout).toContain("test data and named harness frozen by default (release one with unfreeze): 1\n  tools/timeouts.js: named by package.json (setupFilesAfterEnv)\n");
    git(repo, "add", ".github/ranex.yml");
    git(repo, "commit", "-q", "-m", "ranex: policy from ranex init");
    for (const head of ["honest", "setup-swallow"]) {
      git(repo, "checkout", "-q", head);
      git(repo, "rebase", "-q", "main");
    }
    git(repo, "checkout", "-q", "main");
    const [attack, honest] = await Promise.all(["setup-swallow", "honest"].map(async (head) =>
      parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--data-dir", data, "--json"], 240_000))));
    expect(attack!.verdict).toBe("FAIL");
    expect(attack!.class).toBe("unsafe");
    expect(attack!.claims.filter((c) => c.status === "fail").map((c) => c.name)).toEqual(["diff.frozen"]);
    expect(attack!.claims.find((c) => c.name === "diff.frozen")!.details.map((d) => d.message)).toEqual([
      "tools/timeouts.js: modified; harness a frozen configuration names, frozen by default: package.json (setupFilesAfterEnv); release it with unfreeze: ['tools/timeouts.js']",
    ]);
    expect(honest!.verdict, failingText(honest!)).toBe("CANDIDATE");
  }, 600_000);
});
