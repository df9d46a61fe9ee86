import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openRepository, submoduleChanges, SubmoduleError, type SubmoduleAccess } from "../../src/workspace/index.js";
import { fixtureRepo } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/git-repo.js";

// Submodules in judged trees (issue 22), on the python-submodule fixture: a parent whose tests read
// `tests/data` (a submodule with a submodule of its own), its repositories beside it, file URLs
// allowed by this test's access. The attacks come first: each would write, fetch or run something
// the pull request chose; each must be refused with a reason naming the submodule, and leave nothing behind.

const local: SubmoduleAccess = { hosts: [], file: true, depth: 3 };
const PWNED = ["/tmp/ranex-submodule-ext-pwned", "/tmp/ranex-submodule-upload-pack-pwned"];

afterAll(() => {
  for (const file of PWNED) rmSync(file, { force: true });
});

async function opened(access: SubmoduleAccess = local) {
  return openRepository(await fixtureRepo("python-submodule"), tempDir(), { submodules: access });
}

async function refusal(branch: string, access: SubmoduleAccess = local, limit?: number): Promise<string> {
  const repo = await opened(access);
  const dest = join(tempDir(), "tree");
  const err = await (limit === undefined ? repo : repo.withSubmoduleLimit(limit)).materialise(branch, dest).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(SubmoduleError);
  // Refused before anything is written: no half-written tree.
  expect(existsSync(dest) ? readdirSync(dest) : []).toEqual([]);
  return (err as Error).message;
}

describe("a pull request aiming a submodule elsewhere", () => {
  it("a URL naming a remote helper (ext::) runs no command", async () => {
    rmSync(PWNED[0] as string, { force: true });
    expect(await refusal("url-ext")).toMatch(/^submodule "tests\/data" \("ext::sh -c .*"\): its URL names a remote helper \(ext::\)/);
    expect(existsSync(PWNED[0] as string)).toBe(false);
  });

  it("a URL that is an option (--upload-pack=…) is never given to git", async () => {
    rmSync(PWNED[1] as string, { force: true });
    expect(await refusal("url-upload-pack")).toMatch(/^submodule "tests\/data" \("--upload-pack=touch .*"\): its URL starts with '-'/);
    expect(existsSync(PWNED[1] as string)).toBe(false);
  });

  it("a .gitmodules path with '..' is refused, and nothing is written outside the tree", async () => {
    const message = await refusal("path-dotdot");
    expect(message).toContain(`.gitmodules: submodule "escape" has the unsafe path "../../ranex-submodule-escape" (the path has a '..' component)`);
    expect(existsSync(join(tempDir(), "..", "..", "ranex-submodule-escape"))).toBe(false);
  });

  it("a submodule path below a symbolic link of the tree is refused, and nothing is written through the link", async () => {
    const message = await refusal("path-link");
    expect(message).toContain(`submodule "vendor" has the path "vendor/extra", which goes through the symbolic link "vendor" of the tree`);
    expect(existsSync("/tmp/extra/cases/neg.txt")).toBe(false);
  });

  it("a submodule over the tree's limit (sandbox.tree_mb) is refused before a byte of it is written", async () => {
    expect(await refusal("huge", local, 4 * 1024 * 1024)).toMatch(/^submodule "tests\/data": its files take 6\.0 MB, more than the 4\.0 MB all submodules may take \(sandbox\.tree_mb\)/);
  });

  it("a commit the submodule's repository does not have is a refusal naming it", async () => {
    expect(await refusal("missing-commit")).toMatch(/^submodule "tests\/data": commit 0123456789ab could not be fetched from \.\.\/python-submodule-modules\/data: .*not our ref/);
  });
});

describe("an honest tree with submodules", () => {
  it("holds each submodule at the gitlink's commit, nested ones too, without .git", async () => {
    const repo = await opened();
    const dest = join(tempDir(), "tree");
    await repo.materialise("honest", dest);
    expect(readFileSync(join(dest, "tests", "data", "cases", "mul.txt"), "utf8")).toBe("2 3 6\n-1 4 -4\n0 9 0\n");
    expect(readFileSync(join(dest, "tests", "data", "more", "cases", "neg.txt"), "utf8")).toBe("1 -1\n-5 5\n0 0\n");
    // The gitlink's commit, not the submodule repository's newest (which has sub.txt).
    expect(existsSync(join(dest, "tests", "data", "cases", "sub.txt"))).toBe(false);
    expect(existsSync(join(dest, "tests", "data", ".git"))).toBe(false);
    // Fetched once into the data dir's own mirrors, not into the work tree or the parent's mirror.
    const listed = await repo.submodules("honest");
    expect(listed.map((s) => [s.path, s.url, s.nested.map((n) => n.path)])).toEqual([["tests/data", "../python-submodule-modules/data", ["more"]]]);
    expect(dirname(listed[0]?.gitDir ?? "")).toMatch(/\/submodules$/);
  });

  it("the same tree with the operator's defaults (github.com only) is refused, naming the setting", async () => {
    const message = await refusal("honest", { hosts: ["github.com"], file: false, depth: 3 });
    expect(message).toMatch(/^submodule "tests\/data" \("\.\.\/python-submodule-modules\/data"\): it is a path on this machine .*RANEX_SUBMODULE_FILE=1/);
  });

  it("nested submodules stop at the operator's depth", async () => {
    expect(await refusal("honest", { ...local, depth: 1 })).toBe(`submodule "tests/data/more": it is nested 2 levels deep, more than the 1 the operator allows (RANEX_SUBMODULE_DEPTH)`);
  });
});

describe("what a moved gitlink changes", () => {
  it("every file that differs between the two commits, by its path in the tree, and the base's files inside submodules", async () => {
    const repo = await opened();
    const changes = await submoduleChanges(["vendor/shapes"], () => repo.submodules("lib-base"), () => repo.submodules("lib-weaken"));
    expect(changes.problems).toEqual([]);
    expect(changes.facts.map((f) => [f.status, f.path, f.within.path])).toEqual([
      ["M", "vendor/shapes/shapes.py", "vendor/shapes"],
      ["M", "vendor/shapes/tests/test_shapes.py", "vendor/shapes"],
    ]);
    expect(changes.basePaths).toContain("vendor/shapes/tests/test_shapes.py");
    // Nested submodules are listed as the runs' trees hold them.
    expect(changes.basePaths).toContain("tests/data/more/cases/neg.txt");
  });

  it("a side that cannot be fetched is a problem naming the gitlink, never an empty comparison", async () => {
    const repo = await opened();
    const changes = await submoduleChanges(["tests/data"], () => repo.submodules("main"), () => repo.submodules("missing-commit"));
    expect(changes.facts).toEqual([]);
    expect(changes.problems).toEqual([{ path: "tests/data", why: expect.stringMatching(/^its files on the head could not be compared: submodule "tests\/data": commit 0123456789ab/) as unknown }]);
  });
});

describe("the download of a submodule is bounded as it arrives", () => {
  it("a commit whose download passes what the submodules may take is stopped, names the submodule, and leaves nothing to reuse", async () => {
    const dataDir = tempDir();
    const source = await fixtureRepo("python-submodule");
    const attempt = async (): Promise<string> => {
      const repo = (await openRepository(source, dataDir, { submodules: local })).withSubmoduleLimit(4 * 1024 * 1024);
      const err = await repo.materialise("noisy", join(tempDir(), "tree")).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(SubmoduleError);
      return (err as Error).message;
    };
    const bound = /^submodule "tests\/data": commit [0-9a-f]{12} could not be fetched from \.\.\/python-submodule-modules\/data: the download (passed|took) \d+\.\d MB, more than the 5\.0 MB it may take \(sandbox\.tree_mb\)$/;
    expect(await attempt()).toMatch(bound);
    // Stopped again the second time: nothing of the first download is taken as already fetched.
    expect(await attempt()).toMatch(bound);
  });

  it("a download that takes longer than the operator allows is stopped, naming the submodule and the setting", async () => {
    const message = await refusal("noisy", { ...local, fetchSeconds: 0.001 });
    expect(message).toMatch(/^submodule "tests\/data": commit [0-9a-f]{12} could not be fetched from .*: the download took longer than 0\.0 s \(RANEX_SUBMODULE_FETCH_SECONDS\)$/);
  });
});
