import { writeFileSync } from "node:fs";
import { expect, it } from "vitest";
import { git } from "../helpers/git-repo.js";
import { judgedAsNewUser } from "./ecosystem-case.js";
import { failingText, parseVerdict, runCli } from "./run-cli.js";

// Rust tests behind cargo features (issue 22, found on rust-lang/log): fixtures/repos/rust-features.sh,
// whose target and a test file are compiled only with the features `extra` and `std`, and whose
// `std` and `tiny` exclude each other. init tries `--all-features`, which does not build, falls back
// to the features the tests' cfgs name, and writes them; the three pull requests are judged on that.
// With a plain `cargo test` (an older policy), `task check` and the judge name the feature that
// hides the target instead of only calling it absent.
judgedAsNewUser({
  name: "rust-features", runner: "cargo", target: "feat::lib::extra::tests::muls", frozen: "src/extra.rs", newTest: "feat::mul_more::muls_negative",
  initSaw: ({ stdout, written }) => {
    expect(stdout).toContain("test features: --all-features: every feature; tests or the code they test compile only with features (std in src/lib.rs");
    expect(stdout).toContain("cargo --all-features did not build on HEAD (1 test file(s) failed to load and no test ran: src/lib.rs; first error: src/lib.rs: error: the features std and tiny exclude each other); trying cargo --features std,extra…");
    expect(written).toContain("cargo test --features std,extra --offline --locked --no-fail-fast");
    expect(written).toContain("cargo test --features std,extra --offline --locked --no-run");
    expect(written).toContain("# --features std,extra: the features the cfgs name (a larger set did not build on HEAD)");
    // Both gated test files ran in the try: the std one passed, the owner's target failed.
    expect(stdout).toContain("tests/std_fmt.rs  1 (1 passed)");
  },
  more: (seen) => {
    it("with a plain cargo test, task check and the judge name the feature that hides the target", async () => {
      const { repo, data } = seen();
      git(repo, "checkout", "-q", "-B", "plain", "main");
      const policy = seen().written.replaceAll(" --features std,extra", "");
      expect(policy).not.toContain("--features");
      writeFileSync(`${repo}/.github/ranex.yml`, policy);
      git(repo, "commit", "-q", "-am", "ranex: plain cargo test");
      git(repo, "checkout", "-q", "-B", "plain-no-fix", "plain");
      git(repo, "cherry-pick", "no-fix");
      git(repo, "checkout", "-q", "main");
      const check = await runCli(["task", "check", "mul", "--repo", repo, "--base", "plain", "--data-dir", data], 1_200_000);
      expect(check.stdout).toContain("ABSENT    feat::lib::extra::tests::muls: the base holds it, but the command never compiles it: it is behind the cargo feature extra (src/lib.rs), which tests.command does not enable: add --features extra to tests.command and tests.setup");
      expect(check.code).toBe(1);
      const verdict = parseVerdict(await runCli(["judge", "--repo", repo, "--base", "plain", "--head", "plain-no-fix", "--task", "mul", "--data-dir", data, "--json"], 1_200_000));
      expect(verdict.verdict).toBe("FAIL");
      const redGreen = verdict.claims.find((c) => c.name === "tests.red_green");
      expect(redGreen?.reason, failingText(verdict)).toContain("targets that do not fail on base: feat::lib::extra::tests::muls (feat::lib::extra::tests::muls is behind the cargo feature extra (src/lib.rs)");
      expect(redGreen?.details.map((d) => d.message)).toContain("feat::lib::extra::tests::muls: absent on base, absent on head (not red on base) (not green on head): the base holds it behind the cargo feature extra (src/lib.rs), which tests.command does not enable: add --features extra to tests.command and tests.setup (or run ranex init again)");
    }, 1_500_000);
  },
});
