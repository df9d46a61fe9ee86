import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";
import { runCli } from "../e2e/run-cli.js";

// A multi-module Maven build whose modules depend on each other at the build's own SNAPSHOT (issue
// 22, found on zalando/problem): the setup started with `dependency:go-offline`, which cannot find a
// sibling module in any registry, so every such setup failed and init's try ran no test. The setup
// now builds the tests first (the reactor resolves the sibling), and `ranex init`'s try runs both
// modules' tests offline. fixtures/repos/maven-modules.sh; JUnit from Maven Central in setup.
const run = promisify(execFile);

describe("maven-modules: ranex init on a two-module build with a sibling dependency", () => {
  let init: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    const repo = join(tempDir("ranex-maven-modules-"), "maven-modules");
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
    await run("bash", [join(FIXTURES_DIR, "maven-modules.sh"), repo], { env });
    init = await runCli(["init", "--dir", repo, "--data-dir", tempDir("ranex-data-")], 1_800_000);
  }, 1_900_000);

  it("the setup succeeds and the try finds each module's tests in its own file", () => {
    expect(init.stdout + init.stderr).not.toContain("setup exited");
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("runner: maven (");
    expect(init.stdout).toMatch(/core\/src\/test\/java\/ex\/CoreTest\.java\s+1 \(1 passed\)/);
    expect(init.stdout).toMatch(/app\/src\/test\/java\/ex\/AppTest\.java\s+1 \(1 passed\)/);
  });
});
