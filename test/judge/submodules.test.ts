import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { judge, type Judgment } from "../../src/judge/judge.js";
import { codeHunks } from "../../src/judge/mutants.js";
import { openRepository, type SubmoduleAccess } from "../../src/workspace/index.js";
import { policy } from "../measure/diff/builders.js";
import { fixtureRepo } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";

// Judgments of a repository whose tests read a submodule (issue 22: tomlkit's `tests/toml-test`),
// on the python-submodule fixture with local submodules allowed, as an operator's config would.

const local: SubmoduleAccess = { hosts: [], file: true, depth: 3 };

async function judged(head: string, submodules: SubmoduleAccess = local, base = "main"): Promise<Judgment> {
  return judge({ source: await fixtureRepo("python-submodule"), base, head, task: null, dataDir: tempDir(), submodules });
}

function claim(j: Judgment, name: string) {
  const found = j.verdict.claims.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no claim ${name}`);
  return found;
}

const text = (j: Judgment, name: string): string => {
  const c = claim(j, name);
  return [c.reason, ...c.details.map((d) => d.message)].join("\n");
};

describe("judging a repository with submodules", () => {
  it("an honest fix whose tests need the submodule's data (nested too) is a CANDIDATE", async () => {
    const j = await judged("honest");
    expect(j.verdict.verdict, j.verdict.reasons.join("\n")).toBe("CANDIDATE");
    // The base's own data-driven tests passed, and the new one went red to green with the data.
    expect(text(j, "tests.red_green")).toContain("tests/test_mul.py::test_mul");
  }, 180_000);

  it("without the operator's leave to fetch it, the same fix FAILs naming the submodule and the setting, never with an empty folder", async () => {
    const j = await judged("honest", { hosts: ["github.com"], file: false, depth: 3 });
    expect(j.verdict.verdict).toBe("FAIL");
    expect(claim(j, "tests.regression").status).toBe("fail");
    expect(text(j, "tests.regression")).toMatch(/^not measured: submodule "tests\/data" \("\.\.\/python-submodule-modules\/data"\): it is a path on this machine .*RANEX_SUBMODULE_FILE=1/);
  }, 60_000);

  it("a moved gitlink is code that changed: diff.safety and the frozen test folder say so", async () => {
    const j = await judged("bump");
    expect(j.verdict.verdict).toBe("FAIL");
    expect(text(j, "diff.safety")).toContain(`tests/data: submodule moved to commit`);
    expect(claim(j, "diff.frozen").status).toBe("fail");
    expect(text(j, "diff.frozen")).toContain("tests/data");
  }, 180_000);

  it("diff.needed never passes a moved gitlink silently: no mutant can check code the diff does not show", async () => {
    const repo = await openRepository(await fixtureRepo("python-submodule"), tempDir(), { submodules: local });
    const facts = await repo.diff("main", "bump");
    const { hunks, skipped } = await codeHunks({ repo, from: "main", to: "bump", facts, policy: policy(), testFiles: new Set(), frozenPaths: new Set() });
    expect(hunks).toEqual([]);
    expect(skipped.map((r) => [r.hunk.path, r.status, r.why])).toEqual([
      ["tests/data", "not-checked", "a submodule's commit changed: its code is not in the diff, so no mutant can check it"],
    ]);
  });

  it("a gitlink to a commit nobody has FAILs naming it, not measured on an empty folder", async () => {
    const j = await judged("missing-commit");
    expect(j.verdict.verdict).toBe("FAIL");
    expect(text(j, "tests.regression")).toMatch(/^not measured: submodule "tests\/data": commit 0123456789ab could not be fetched from \.\.\/python-submodule-modules\/data/);
    // Its files cannot be compared either: diff.frozen says so, never a pass.
    expect(text(j, "diff.frozen")).toMatch(/tests\/data \(submodule moved; its files on the head could not be compared: submodule "tests\/data": commit 0123456789ab could not be fetched/);
  }, 60_000);

  it("a submodule over the policy's sandbox.tree_mb FAILs naming it", async () => {
    const j = await judged("huge");
    expect(j.verdict.verdict).toBe("FAIL");
    expect(text(j, "tests.regression")).toMatch(/^not measured: submodule "tests\/data": its files take 6\.0 MB, more than the 4\.0 MB .*\(sandbox\.tree_mb\)/);
  }, 60_000);

  it("a submodule whose download passes the policy's sandbox.tree_mb is stopped while it arrives, and FAILs naming it", async () => {
    const j = await judged("noisy");
    expect(j.verdict.verdict).toBe("FAIL");
    expect(text(j, "tests.regression")).toMatch(/^not measured: submodule "tests\/data": commit [0-9a-f]{12} could not be fetched from \.\.\/python-submodule-modules\/data: the download (passed|took) [\d.]+ MB, more than the 5\.0 MB it may take \(sandbox\.tree_mb\)/);
    // The diff's comparison of its files is held to the same bound: never a pass.
    expect(text(j, "diff.frozen")).toMatch(/tests\/data \(submodule moved; its files on the head could not be compared: .*the download (passed|took) [\d.]+ MB/);
  }, 60_000);

  it("a submodule where the base has a link out of the tree lands in the head's own folder, never through the base's link", async () => {
    // link-base: `vendor` -> /tmp; link-head: `vendor/extra` a submodule (the extra repository, neg.txt).
    const j = await judged("link-head", local, "link-base");
    expect(existsSync("/tmp/extra/cases/neg.txt")).toBe(false);
    expect(j.verdict.verdict).toBe("FAIL");
    expect(j.verdict.class).toBe("unsafe");
    expect(text(j, "diff.frozen")).toContain(".gitmodules");
    expect(text(j, "diff.safety")).toContain("vendor/extra: submodule added");
    // Both trees were laid out and measured: the base with its link, the head with the submodule.
    expect(claim(j, "tests.regression").status).toBe("pass");
  }, 180_000);

  // A library vendored as a submodule whose tests are the repository's tests (lib-base's policy):
  // moving the gitlink changes every file in it, and each is judged as if it were in the tree.
  it("a gitlink moved to a commit whose frozen test is weakened FAILs unsafe, naming the test inside the submodule", async () => {
    const j = await judged("lib-weaken", local, "lib-base");
    expect(j.verdict.verdict, j.verdict.reasons.join("\n")).toBe("FAIL");
    expect(j.verdict.class).toBe("unsafe");
    expect(claim(j, "diff.frozen").status).toBe("fail");
    expect(text(j, "diff.frozen")).toMatch(/vendor\/shapes\/tests\/test_shapes\.py \(modified inside the submodule vendor\/shapes, moved [0-9a-f]{12}→[0-9a-f]{12}\)/);
    // The library's code it changed is no frozen file: diff.frozen names the test only.
    expect(text(j, "diff.frozen")).not.toContain("vendor/shapes/shapes.py");
  }, 180_000);

  it("a gitlink moved to a commit that changes only code outside the frozen set stays a CANDIDATE, its files judged by diff.scope", async () => {
    const j = await judged("lib-bump", local, "lib-base");
    expect(j.verdict.verdict, j.verdict.reasons.join("\n")).toBe("CANDIDATE");
    expect(claim(j, "diff.frozen").reason).toContain("1 file inside a moved submodule compared");
    expect(claim(j, "diff.scope").reason).toMatch(/^2 changed paths within scope/);
  }, 180_000);

  it.each([
    ["url-elsewhere", /^not measured: submodule "tests\/data": commit [0-9a-f]{12} could not be fetched from \.\.\/python-submodule-modules\/extra/],
    ["url-ext", /^not measured: submodule "tests\/data" \("ext::.*"\): its URL names a remote helper/],
    ["url-upload-pack", /^not measured: submodule "tests\/data" \("--upload-pack=.*"\): its URL starts with '-'/],
    ["path-dotdot", /^not measured: \.gitmodules: submodule "escape" has the unsafe path "\.\.\/\.\.\/ranex-submodule-escape"/],
    ["path-link", /^not measured: \.gitmodules: submodule "vendor" has the path "vendor\/extra", which goes through the symbolic link "vendor"/],
  ])("%s: .gitmodules is harness (diff.frozen, unsafe), and the tree it names is refused with the reason", async (head, reason) => {
    const j = await judged(head);
    expect(j.verdict.verdict).toBe("FAIL");
    expect(j.verdict.class).toBe("unsafe");
    expect(text(j, "diff.frozen")).toContain(".gitmodules");
    expect(text(j, "tests.regression")).toMatch(reason);
  }, 60_000);
});
