import { describe, expect, it } from "vitest";
import { judge } from "../../src/judge/judge.js";
import { dataDirSealKey, sealedFileDigest } from "../../src/attest/index.js";
import { git, tempDir } from "../helpers/git-repo.js";
import { SEALED_FILE, sealedRoman } from "../helpers/sealed-repo.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";

// tests.sealed end to end on python-roman (issue 20): real repositories, the real sealed box, the
// measuring process opening it with the key from its pipe, real bubblewrap runs.

const claim = (j: Awaited<ReturnType<typeof judge>>, name: string) => j.verdict.claims.find((c) => c.name === name);

describe("tests.sealed", () => {
  it("an honest fix is CANDIDATE; the signed subject names the sealed file's digest", async () => {
    const dataDir = tempDir();
    const { dir } = await sealedRoman(dataDir);
    const j = await judge({ source: dir, base: "main", head: "honest", task: "roman", dataDir });
    expect(claim(j, "tests.sealed"), JSON.stringify(claim(j, "tests.sealed"))).toMatchObject({ status: "pass" });
    expect(claim(j, "tests.sealed")?.reason).toBe("all 3 sealed tests fail on base and pass on head");
    expect(j.verdict.verdict).toBe("CANDIDATE");
    expect(j.verdict.subject.sealed).toBe(sealedFileDigest(readFileSync(join(dir, SEALED_FILE))));
    expect(claim(j, "tests.sealed")?.details.map((d) => d.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^sealed-[0-9a-f]{10}: failed on base, passed on head$/)]));
  }, 180_000);

  it("a lookup table that passes every visible target FAILs it, and so does an object equal to everything", async () => {
    const dataDir = tempDir();
    const { dir } = await sealedRoman(dataDir);
    for (const head of ["lookup", "always-equal"]) {
      const j = await judge({ source: dir, base: "main", head, task: "roman", dataDir });
      expect(claim(j, "tests.red_green")?.status, head).toBe("pass");
      expect(claim(j, "tests.regression")?.status, head).toBe("pass");
      expect(claim(j, "tests.sealed"), head).toMatchObject({ status: "fail", class: "incomplete" });
      expect(claim(j, "tests.sealed")?.reason, head).toMatch(/^3 of 3 sealed tests do not pass on head/);
      expect(j.verdict).toMatchObject({ verdict: "FAIL", class: "incomplete" });
    }
  }, 300_000);

  it("a PR that edits or deletes the sealed file FAILs diff.frozen as unsafe", async () => {
    const dataDir = tempDir();
    const { dir } = await sealedRoman(dataDir);
    for (const head of ["edit-sealed", "delete-sealed"]) {
      const j = await judge({ source: dir, base: "main", head, task: "roman", dataDir });
      expect(claim(j, "diff.frozen"), head).toMatchObject({ status: "fail", class: "unsafe" });
      expect(j.verdict).toMatchObject({ verdict: "FAIL", class: "unsafe" });
    }
  }, 300_000);

  it("a box sealed to another key, a corrupt box, or no key at all is FAIL incomplete with the remedy", async () => {
    const dataDir = tempDir();
    const { dir, unsealedMain } = await sealedRoman(dataDir);
    // Another gate's data dir: its own sealing key.
    const other = tempDir();
    await dataDirSealKey(other);
    const wrongKey = await judge({ source: dir, base: "main", head: "honest", task: "roman", dataDir: other });
    expect(claim(wrongKey, "tests.sealed"), JSON.stringify(claim(wrongKey, "tests.sealed"))).toMatchObject({ status: "fail", class: "incomplete" });
    expect(claim(wrongKey, "tests.sealed")?.reason).toMatch(/was sealed to key sha256:[0-9a-f]{64}, but the gate's sealing key is sha256:.*ranex seal --key/);
    expect(wrongKey.verdict.verdict).toBe("FAIL");

    const noKey = await judge({ source: dir, base: "main", head: "honest", task: "roman", dataDir: tempDir() });
    expect(claim(noKey, "tests.sealed")?.reason).toMatch(/the gate has no sealing key in its data dir: run `ranex keygen`/);

    // The base itself carries a corrupt box (a maintainer's bad copy): measured, and refused inside the measuring process.
    git(dir, "checkout", "-q", "-b", "main-corrupt", "main");
    git(dir, "cherry-pick", "edit-sealed");
    git(dir, "checkout", "-q", "main");
    const corrupt = await judge({ source: dir, base: "main-corrupt", head: "honest", task: "roman", dataDir });
    expect(claim(corrupt, "tests.sealed")).toMatchObject({ status: "fail", class: "incomplete" });
    expect(claim(corrupt, "tests.sealed")?.reason).toMatch(/does not open with the gate's sealing key: it was altered or cut; seal the tests again/);

    // No sealed file named by the task while the policy requires tests.sealed: absence blocks.
    const unsealed = await judge({ source: dir, base: unsealedMain, head: "honest", task: "roman", dataDir });
    expect(claim(unsealed, "tests.sealed")).toMatchObject({ status: "missing" });
    expect(claim(unsealed, "tests.sealed")?.reason).toMatch(/the task seals no acceptance tests: seal some with `ranex seal --task <id> <files>`/);
    expect(unsealed.verdict.verdict).toBe("FAIL");
  }, 400_000);
});
