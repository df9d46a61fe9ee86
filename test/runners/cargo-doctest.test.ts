import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { failingText, initByCli, parseVerdict, runCli, type VerdictJson } from "../e2e/run-cli.js";

// Doc-tests as the gate names them (issue 22). rustdoc names an example by its line
// (`src/lib.rs - clamp (line 10)`); tried on rust-lang/glob, an honest fix that added lines above an
// example FAILed tests.regression: "tests vanished on head". The ids drop the line, so an example
// keeps its id when code above it moves; one that is really deleted still vanishes.

describe("rust-doctest: ranex init, then a fix above the examples and a deleted example", () => {
  let repo: string;
  let data: string;
  let init: Awaited<ReturnType<typeof runCli>>;
  const judge = async (head: string): Promise<VerdictJson> =>
    parseVerdict(await runCli(["judge", "--repo", repo, "--base", "main", "--head", head, "--data-dir", data, "--json"], 1_200_000));

  beforeAll(async () => {
    ({ repo, data, init } = await initByCli("rust-doctest", ["honest", "drop-example"]));
  }, 1_500_000);

  it("init's try names each example without its line, the second of an item with #2", () => {
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("runner: cargo (");
    expect(readFileSync(join(repo, ".github", "ranex.yml"), "utf8")).toContain("cargo test --offline --locked");
    expect(init.stdout).toMatch(/src\/lib\.rs\s+3 \(3 passed\)/);
  });

  it("an honest fix that moves every example down is a CANDIDATE: no example vanished", async () => {
    const verdict = await judge("honest");
    expect(verdict.verdict, failingText(verdict)).toBe("CANDIDATE");
    const regression = verdict.claims.find((c) => c.name === "tests.regression");
    expect(regression?.status).toBe("pass");
    expect(regression?.reason).not.toContain("vanished");
  }, 1_200_000);

  it("an example really deleted still vanishes: FAIL tests.regression naming it", async () => {
    const verdict = await judge("drop-example");
    expect(verdict.verdict).toBe("FAIL");
    const regression = verdict.claims.find((c) => c.name === "tests.regression");
    expect(regression?.status).toBe("fail");
    expect(regression?.reason).toContain("clampx::doc::src/lib.rs - clamp #2");
    expect(regression?.reason).not.toContain("(line");
  }, 1_200_000);
});
