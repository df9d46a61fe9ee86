import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPORTERS_DIR, SANDBOX_REPORTERS_DIR } from "../../src/measure/reporters.js";
import { runSuite } from "../../src/measure/run-suite.js";
import { detectTestRunner } from "../../src/policy/detect.js";
import { CARGO_TEST_COMMAND, WHOLE_WORKSPACE } from "../../src/runners/cargo.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { PROFILE } from "../sandbox/helpers.js";
import { tempDir } from "../helpers/git-repo.js";
import { failingText, initByCli, parseVerdict, runCli, type VerdictJson } from "./run-cli.js";

// A Cargo workspace run by nextest (issue 22): its root is a package too, so init writes `cargo nextest
// run --workspace`; beta-util is three folders down (libs/num/beta-util), a member only the manifest
// names, and still gets its ids, its frozen tests and a canary in each of its test binaries, whose
// end token catches a forged libtest summary there (issue 19). fixtures/repos/nextest-workspace.sh.
// A member's weakened test is judged by test/runners/cargo-workspace.test.ts (`**/tests/**` freezes it
// at any depth); here two judgments only, for CI's time.
describe("nextest-workspace: nextest --workspace, a member three folders down", () => {
  let repo: string;
  let data: string;
  let init: Awaited<ReturnType<typeof runCli>>;
  const judge = async (head: string): Promise<VerdictJson> =>
    parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--data-dir", data, "--json"], 1_200_000));

  beforeAll(async () => {
    ({ repo, data, init } = await initByCli("nextest-workspace", ["honest", "forge-summary"]));
  }, 1_500_000);

  it("init writes cargo nextest run --workspace and its try finds the deep member's tests in its files", () => {
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("runner: nextest (");
    expect(readFileSync(join(repo, ".github", "ranex.yml"), "utf8")).toContain("cargo nextest run --workspace --offline");
    expect(init.stdout).toMatch(/libs\/num\/beta-util\/tests\/mod\.rs\s+1 \(1 passed\)/);
    expect(init.stdout).not.toContain("have no file");
  });

  it("an honest fix in the deep member is a CANDIDATE, its new test a red-to-green target", async () => {
    const verdict = await judge("honest");
    expect(verdict.verdict, failingText(verdict)).toBe("CANDIDATE");
    expect(JSON.stringify(verdict.claims.find((c) => c.name === "tests.red_green"))).toContain("beta-util::overflow::midpoint_near_the_top_does_not_overflow");
  }, 1_200_000);

  it("a forged libtest summary and exit 0 inside the deep member's new test is FAIL unsafe: its canary's end token is missing", async () => {
    const verdict = await judge("forge-summary");
    expect(verdict.verdict).toBe("FAIL");
    expect(verdict.class).toBe("unsafe");
    expect(failingText(verdict)).toContain("beta-util::overflow::midpoint_near_the_top_does_not_overflow passed by its process's exit status, without libtest's end of the test");
  }, 1_200_000);

  it("cargo test --workspace on the same tree puts a canary into the deep member's binaries too", async () => {
    const tree = tempDir("ranex-cargo-ws-deep-");
    cpSync(repo, tree, { recursive: true, filter: (p) => !p.includes("/.git") });
    const toolchain = (await detectTestRunner(tree)).toolchain ?? [];
    const scratch = tempDir("ranex-cargo-ws-deep-run-");
    const run = await runSuite(createSandbox({ ...PROFILE, toolchain, mounts: [{ host: REPORTERS_DIR, sandbox: SANDBOX_REPORTERS_DIR }] }), {
      label: "head", treeDir: tree, readonly: [], reportDir: join(scratch, "report"), canaryDir: join(scratch, "canary"),
      setup: undefined, command: CARGO_TEST_COMMAND.replace("cargo test", WHOLE_WORKSPACE), setupNetwork: false, timeout: 300,
    });
    expect(run.report?.cases.map((c) => c.id).sort(), run.command?.outputTail).toEqual([
      "alpha::lib::tests::works", "alpha::mod::basic", "beta-util::lib::tests::works", "beta-util::mod::basic", "wsroot::lib::tests::works",
    ]);
    const deep = (run.canary?.members ?? []).filter((m) => m.inBinary?.label.startsWith("beta-util::"));
    expect(deep.map((m) => [m.inBinary?.label, m.expect, m.result]).sort()).toEqual([
      ["beta-util::lib", "fail", "failed"], ["beta-util::lib", "fail", "failed"], ["beta-util::lib", "pass", "passed"],
      ["beta-util::mod", "fail", "failed"], ["beta-util::mod", "fail", "failed"], ["beta-util::mod", "pass", "passed"],
    ]);
  }, 600_000);
});
