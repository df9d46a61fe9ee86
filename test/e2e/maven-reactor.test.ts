import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../helpers/fixtures.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { failingText, parseVerdict, runCli, type VerdictJson } from "./run-cli.js";

// A multi-module Maven build judged as a new user meets it (issues 19 and 22;
// fixtures/repos/maven-reactor.sh): no tests at the root, a canary class in each module, each module's
// `ex.CalcTest` with ids and a file of its own, and Surefire reports that code under test rewrites
// after Maven wrote them (a process its class initializer leaves behind takes the failures out).
// `forge-module` rewrites every report of its module, the canary's too, and is caught by the canary
// in that module; `forge-target` rewrites only the target's, and is caught by Maven's own console.
// Both were CANDIDATE before (no canary outside the root's src/test/java; the XML believed).
// `neuter-deep` neuters assertEquals in `libs/text/round`, three folders down, which Maven's console
// cannot see (the tests really pass): CANDIDATE before the canary went to every module of the reactor.
const run = promisify(execFile);

describe("maven-reactor: ranex init, then pull requests that forge a module's results", () => {
  let repo: string;
  let data: string;
  let init: Awaited<ReturnType<typeof runCli>>;
  const judge = async (head: string): Promise<VerdictJson> =>
    parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--task", "mul", "--data-dir", data, "--json"], 1_200_000));

  beforeAll(async () => {
    repo = join(tempDir("ranex-maven-reactor-"), "maven-reactor");
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_")));
    await run("bash", [join(FIXTURES_DIR, "maven-reactor.sh"), repo], { env });
    data = tempDir("ranex-data-");
    init = await runCli(["init", "--dir", repo, "--data-dir", data], 1_200_000);
    // init's policy, unmodified, on main; every head replayed on it.
    git(repo, "add", ".github/ranex.yml");
    git(repo, "commit", "-q", "-m", "ranex: policy from ranex init");
    for (const head of ["honest", "forge-module", "forge-target", "neuter-deep"]) {
      git(repo, "checkout", "-q", head);
      git(repo, "rebase", "-q", "main");
    }
    git(repo, "checkout", "-q", "main");
  }, 1_500_000);

  it("init's try gives each module's ex.CalcTest its own ids and its own file", () => {
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("runner: maven (");
    expect(init.stdout).toMatch(/core\/src\/test\/java\/ex\/CalcTest\.java\s+2 \(1 passed, 1 failed\)/);
    expect(init.stdout).toMatch(/app\/src\/test\/java\/ex\/CalcTest\.java\s+1 \(1 passed\)/);
    expect(init.stdout).toContain("libs/text/round/ex.RoundTest#halfEven");
    expect(init.stdout).toContain("core/ex.CalcTest#muls");
  });

  it("an honest fix is a CANDIDATE, with a canary in each module that came back as it must", async () => {
    const verdict = await judge("honest");
    expect(verdict.verdict, failingText(verdict)).toBe("CANDIDATE");
    const redGreen = verdict.claims.find((c) => c.name === "tests.red_green");
    expect(redGreen?.details.map((d) => d.message)).toContain("core/ex.CalcTest#muls: failed on base, passed on head");
    const regression = verdict.claims.find((c) => c.name === "tests.regression");
    expect(regression?.details.filter((d) => d.kind === "canary" || d.kind === "rewritten")).toEqual([]);
  }, 1_200_000);

  const attacks = [
    { head: "forge-module", what: "every report of core rewritten, the canary's too", by: "the canary in module core", says: "in module core's test binary" },
    { head: "forge-target", what: "only the target's report rewritten", by: "Maven's own console", says: "Maven printed 1 failing test of ex.CalcTest, its Surefire report holds 0" },
    // Three folders down (libs/text/round, a module of the libs aggregator): a canary there only since the reactor's own module list is read.
    { head: "neuter-deep", what: "JUnit's assertEquals shadowed in a module three folders down", by: "the canary in module libs/text/round", says: "in module libs/text/round's test binary) was reported passed" },
  ];
  for (const { head, what, by, says } of attacks) {
    it(`${head} (${what}) is FAIL unsafe, caught by ${by}`, async () => {
      const verdict = await judge(head);
      expect(verdict.verdict, failingText(verdict)).toBe("FAIL");
      expect(verdict.class).toBe("unsafe");
      const regression = verdict.claims.find((c) => c.name === "tests.regression");
      expect(regression?.reason).toContain("the test run reported results that did not happen");
      expect(regression?.reason).toContain(says);
    }, 1_200_000);
  }
});
