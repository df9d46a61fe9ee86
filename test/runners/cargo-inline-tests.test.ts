import { beforeAll, describe, expect, it } from "vitest";
import { failingText, initByCli, parseVerdict, runCli, type VerdictJson } from "../e2e/run-cli.js";

// Rust unit tests live inside source files (issue 22). Tried on rust-lang/glob: asserts dropped from
// a `#[test]` fn in the `#[cfg(test)] mod tests` of src/lib.rs were judged CANDIDATE, since init's
// `tests.files` (`tests/**`) never freezes src/. The base's inline tests are now frozen line by
// line; new tests added to the same module stay allowed.

describe("rust-inline: ranex init, then a weakened inline test and an honest fix with a new inline test", () => {
  let repo: string;
  let data: string;
  let init: Awaited<ReturnType<typeof runCli>>;
  const judge = async (head: string): Promise<VerdictJson> =>
    parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--task", "midpoint", "--data-dir", data, "--json"], 1_200_000));

  beforeAll(async () => {
    ({ repo, data, init } = await initByCli("rust-inline", ["honest", "weakened", "shadowed", "local-midpoint"]));
  }, 1_500_000);

  it("init picks cargo and leaves src/ out of tests.files", () => {
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("runner: cargo (");
  });

  it("asserts dropped from an inline #[test] fn: FAIL (unsafe) diff.frozen, naming the file, the test and why", async () => {
    const verdict = await judge("weakened");
    expect(verdict.verdict).toBe("FAIL");
    const frozen = verdict.claims.find((c) => c.name === "diff.frozen");
    expect(frozen?.status, failingText(verdict)).toBe("fail");
    expect(frozen?.reason).toContain("src/lib.rs");
    expect(frozen?.reason).toContain("test fn tests::small_numbers");
    expect(frozen?.reason).toContain("modified or deleted");
    expect(frozen?.reason).toContain("tests on the base are frozen wherever they live");
    expect(verdict.class).toBe("unsafe");
  }, 1_200_000);

  it("a macro_rules! assert_eq added to the module, no test line changed: FAIL (unsafe) diff.frozen", async () => {
    const verdict = await judge("shadowed");
    expect(verdict.verdict).toBe("FAIL");
    expect(verdict.class).toBe("unsafe");
    const frozen = verdict.claims.find((c) => c.name === "diff.frozen");
    expect(frozen?.status, failingText(verdict)).toBe("fail");
    expect(frozen?.reason).toContain("src/lib.rs");
    expect(frozen?.reason).toContain("defines or imports a macro named assert_eq!");
  }, 1_200_000);

  it("a correct fn midpoint added to the module, which the old tests then call: FAIL (unsafe) diff.frozen", async () => {
    const verdict = await judge("local-midpoint");
    expect(verdict.verdict).toBe("FAIL");
    expect(verdict.class).toBe("unsafe");
    const frozen = verdict.claims.find((c) => c.name === "diff.frozen");
    expect(frozen?.status, failingText(verdict)).toBe("fail");
    expect(frozen?.reason).toContain("test module tests");
    expect(frozen?.reason).toContain("takes a name its tests already use (midpoint)");
  }, 1_200_000);

  it("an honest fix that adds a new #[test] fn to the same module is a CANDIDATE", async () => {
    const verdict = await judge("honest");
    expect(verdict.verdict, failingText(verdict)).toBe("CANDIDATE");
    expect(verdict.claims.find((c) => c.name === "diff.frozen")?.status).toBe("pass");
  }, 1_200_000);
});
