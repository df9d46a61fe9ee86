import { cpSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runSuite } from "../../src/measure/run-suite.js";
import type { SuiteRun } from "../../src/measure/report-types.js";
import { detectTestRunner } from "../../src/policy/detect.js";
import { testCommand } from "../../src/policy/init.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { PROFILE } from "../sandbox/helpers.js";
import { tempDir } from "../helpers/git-repo.js";
import { failingText, initByCli, parseVerdict, runCli, type VerdictJson } from "../e2e/run-cli.js";

// Cargo workspaces (issue 22, tried on RustCrypto/utils, a virtual workspace of 14 crates): cargo
// prints each target's source relative to its own package (`Running tests/mod.rs`), so the reader
// found no file for 456 of 481 tests, and named every integration test after its binary: the two
// members' `tests/mod.rs` gave the same ids (`mod::mod::basic`), one outcome hiding the other. And
// the default `tests/**` froze none of the members' test files. fixtures/repos/rust-workspace.sh.

async function sandboxRun(tree: string, command: string, toolchain: string[]): Promise<SuiteRun> {
  const scratch = tempDir("ranex-cargo-ws-run-");
  return runSuite(createSandbox({ ...PROFILE, toolchain }), {
    label: "head", treeDir: tree, readonly: [], reportDir: join(scratch, "report"),
    setup: undefined, command, setupNetwork: false, timeout: 300,
  });
}

const idsAndFiles = (head: SuiteRun): Record<string, [string, string | null]> =>
  Object.fromEntries((head.report?.cases ?? []).map((c) => [c.id, [c.result, c.file]]));

describe("rust-workspace: a virtual workspace whose members both have tests/mod.rs", () => {
  let repo: string;
  let data: string;
  let init: Awaited<ReturnType<typeof runCli>>;
  const judge = async (head: string): Promise<VerdictJson> =>
    parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--data-dir", data, "--json"], 1_200_000));

  beforeAll(async () => {
    ({ repo, data, init } = await initByCli("rust-workspace", ["honest", "edit-test", "no-fix"]));
  }, 1_500_000);

  it("names each member's tests after the member, with the member's files", async () => {
    const tree = tempDir("ranex-cargo-ws-tree-");
    cpSync(repo, tree, { recursive: true, filter: (p) => !p.includes("/.git") });
    const found = await detectTestRunner(tree);
    const head = await sandboxRun(tree, testCommand(found)?.command ?? "false", found.toolchain ?? []);
    expect(head.reportError).toBeNull();
    expect(head.report?.duplicates).toEqual([]);
    expect(idsAndFiles(head)).toEqual({
      "alpha::lib::tests::works": ["passed", "crates/alpha/src/lib.rs"],
      "alpha::mod::basic": ["passed", "crates/alpha/tests/mod.rs"],
      "beta-util::lib::tests::works": ["passed", "crates/beta-util/src/lib.rs"],
      "beta-util::mod::basic": ["passed", "crates/beta-util/tests/mod.rs"],
    });
  }, 600_000);

  it("a workspace whose root is a package too: init runs the whole workspace, and the root's src/lib.rs and tests/mod.rs stay the root's", async () => {
    const tree = tempDir("ranex-cargo-ws-root-");
    cpSync(repo, tree, { recursive: true, filter: (p) => !p.includes("/.git") });
    writeFileSync(join(tree, "Cargo.toml"), `[package]\nname = "wsroot"\nversion = "0.1.0"\nedition = "2021"\n\n${readFileSync(join(tree, "Cargo.toml"), "utf8")}`);
    writeFileSync(join(tree, "Cargo.lock"), readFileSync(join(tree, "Cargo.lock"), "utf8").replace('name = "beta-util"\nversion = "0.1.0"\n', 'name = "beta-util"\nversion = "0.1.0"\n\n[[package]]\nname = "wsroot"\nversion = "0.1.0"\n'));
    mkdirSync(join(tree, "src"));
    mkdirSync(join(tree, "tests"));
    writeFileSync(join(tree, "src", "lib.rs"), "#[cfg(test)]\nmod tests {\n    #[test]\n    fn works() {}\n}\n");
    writeFileSync(join(tree, "tests", "mod.rs"), "#[test]\nfn basic() {}\n");
    const found = await detectTestRunner(tree);
    // Plain `cargo test` at such a root tests the root package alone: the members' tests never ran.
    expect(testCommand(found)?.command).toContain("cargo test --workspace --offline --locked");
    expect(found.install).toContain("cargo test --workspace --offline --locked --no-run");
    const head = await sandboxRun(tree, testCommand(found)?.command ?? "false", found.toolchain ?? []);
    expect(head.reportError).toBeNull();
    expect(head.report?.duplicates).toEqual([]);
    expect(idsAndFiles(head)).toEqual({
      "alpha::lib::tests::works": ["passed", "crates/alpha/src/lib.rs"],
      "alpha::mod::basic": ["passed", "crates/alpha/tests/mod.rs"],
      "beta-util::lib::tests::works": ["passed", "crates/beta-util/src/lib.rs"],
      "beta-util::mod::basic": ["passed", "crates/beta-util/tests/mod.rs"],
      "wsroot::lib::tests::works": ["passed", "src/lib.rs"],
      "wsroot::mod::basic": ["passed", "tests/mod.rs"],
    });
  }, 600_000);

  it("init's try finds every test in its member's file, and its policy makes the members' tests test files", () => {
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("runner: cargo (");
    expect(init.stdout).toMatch(/crates\/alpha\/tests\/mod\.rs\s+1 \(1 passed\)/);
    expect(init.stdout).toMatch(/crates\/beta-util\/tests\/mod\.rs\s+1 \(1 passed\)/);
    expect(init.stdout).not.toContain("have no file");
    expect(readFileSync(join(repo, ".github", "ranex.yml"), "utf8")).toContain("'**/tests/**'");
  });

  it("an honest fix with a new test file in a member is a CANDIDATE, its test a red-to-green target", async () => {
    const verdict = await judge("honest");
    expect(verdict.verdict, failingText(verdict)).toBe("CANDIDATE");
    const redGreen = verdict.claims.find((c) => c.name === "tests.red_green");
    expect(redGreen?.status).toBe("pass");
    expect(JSON.stringify(redGreen)).toContain("beta-util::overflow::midpoint_near_the_top_does_not_overflow");
  }, 1_200_000);

  it("a member's test file weakened is frozen: FAIL unsafe, diff.frozen naming it", async () => {
    const verdict = await judge("edit-test");
    expect(verdict.verdict).toBe("FAIL");
    expect(verdict.class).toBe("unsafe");
    const frozen = verdict.claims.find((c) => c.name === "diff.frozen");
    expect(frozen?.status).toBe("fail");
    expect(JSON.stringify(frozen)).toContain("crates/beta-util/tests/mod.rs");
  }, 1_200_000);

  it("the new test without the fix: FAIL, its target red on the head", async () => {
    const verdict = await judge("no-fix");
    expect(verdict.verdict).toBe("FAIL");
    const redGreen = verdict.claims.find((c) => c.name === "tests.red_green");
    expect(redGreen?.status).toBe("fail");
    expect(JSON.stringify(redGreen)).toContain("midpoint_near_the_top_does_not_overflow");
  }, 1_200_000);
});
