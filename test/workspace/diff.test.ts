import { describe, expect, it } from "vitest";
import { openRepository, type DiffFact } from "../../src/workspace/index.js";
import { git, tempDir, TestRepo } from "../helpers/git-repo.js";
import { commitGitlink } from "./craft.js";

const ODD = ["with\nnewline.txt", "with\ttab.txt", 'with"quote.txt', "ünïcödé ✓.txt", "-leading-dash.txt", "with spaces.txt"];

function byPath(facts: DiffFact[], path: string): DiffFact {
  const fact = facts.find((f) => f.path === path);
  if (!fact) throw new Error(`no fact for ${JSON.stringify(path)} in ${JSON.stringify(facts.map((f) => f.path))}`);
  return fact;
}

const lines = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag} line ${i}\n`).join("");

describe("diff facts", () => {
  it("reports every status with modes, blobs, scores and sizes", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({
      "mod.txt": "old\n",
      "gone.txt": "bye\n",
      "renamed-from.txt": lines(20, "r"),
      "script.sh": "echo hi\n",
      "becomes-link.txt": "text\n",
    });
    const head = repo.commit({
      "mod.txt": "new\n",
      "gone.txt": null,
      "renamed-from.txt": null,
      "dir/renamed-to.txt": lines(20, "r") + "extra\n",
      "script.sh": { content: "echo hi\n", mode: 0o755 },
      "becomes-link.txt": { symlink: "/etc/passwd" },
      "added.txt": "fresh\n",
    });
    const opened = await openRepository(repo.dir, tempDir());
    const facts = await opened.diff(base, head);
    expect(byPath(facts, "added.txt")).toMatchObject({ status: "A", oldPath: null, oldMode: "000000", newMode: "100644", size: 6, binary: false, submodule: false, symlinkTarget: null });
    expect(byPath(facts, "added.txt").oldBlob).toMatch(/^0{40}$/);
    expect(byPath(facts, "added.txt").newBlob).toBe(git(repo.dir, "rev-parse", `${head}:added.txt`));
    expect(byPath(facts, "mod.txt")).toMatchObject({ status: "M", oldMode: "100644", newMode: "100644", size: 4 });
    expect(byPath(facts, "gone.txt")).toMatchObject({ status: "D", newMode: "000000", size: null });
    const renamed = byPath(facts, "dir/renamed-to.txt");
    expect(renamed).toMatchObject({ status: "R", oldPath: "renamed-from.txt" });
    expect(renamed.score).toBeGreaterThan(80);
    expect(renamed.score).toBeLessThan(100);
    expect(byPath(facts, "script.sh")).toMatchObject({ status: "M", oldMode: "100644", newMode: "100755" });
    expect(byPath(facts, "becomes-link.txt")).toMatchObject({ status: "T", oldMode: "100644", newMode: "120000", symlinkTarget: "/etc/passwd", size: 11 });
    expect(facts).toHaveLength(6);
  });

  it("reports copies when asked to find them", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "orig.txt": lines(30, "c") });
    const head = repo.commit({ "orig.txt": lines(30, "c") + "changed\n", "copy.txt": lines(30, "c") });
    const opened = await openRepository(repo.dir, tempDir());
    const copy = byPath(await opened.diff(base, head, { findCopies: true }), "copy.txt");
    expect(copy).toMatchObject({ status: "C", oldPath: "orig.txt", score: 100 });
    expect(byPath(await opened.diff(base, head), "copy.txt").status).toBe("A");
  });

  it("keeps odd path names exactly, in adds and renames", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "plain.txt": lines(10, "p") });
    const files: Record<string, string | null> = { "plain.txt": null, "ren\name ✓.txt": lines(10, "p") };
    for (const name of ODD) files[name] = `${name}\n`;
    const head = repo.commit(files);
    const facts = await (await openRepository(repo.dir, tempDir())).diff(base, head);
    for (const name of ODD) expect(byPath(facts, name).status).toBe("A");
    expect(byPath(facts, "ren\name ✓.txt")).toMatchObject({ status: "R", oldPath: "plain.txt", score: 100 });
  });

  it("flags binary files and measures large ones without reading them", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "keep.txt": "k\n" });
    const big = Buffer.alloc(6 * 1024 * 1024, "a");
    const head = repo.commit({ "img.bin": Buffer.from([0x89, 0x50, 0x00, 0x01, 0xff, 0x00]), "big.txt": big });
    const facts = await (await openRepository(repo.dir, tempDir())).diff(base, head);
    expect(byPath(facts, "img.bin")).toMatchObject({ binary: true, size: 6 });
    expect(byPath(facts, "big.txt")).toMatchObject({ binary: false, size: 6 * 1024 * 1024 });
  });

  it("marks gitlinks as submodules", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "a.txt": "a\n" });
    const head = commitGitlink(repo, "vendor/lib", base);
    const facts = await (await openRepository(repo.dir, tempDir())).diff(base, head);
    expect(byPath(facts, "vendor/lib")).toMatchObject({ status: "A", newMode: "160000", newBlob: base, submodule: true, size: null });
  });

  it("is empty for the same tree and refuses unknown commits", async () => {
    const repo = TestRepo.init();
    const base = repo.commit({ "a.txt": "a\n" });
    const same = repo.commit({}, "empty");
    const opened = await openRepository(repo.dir, tempDir());
    expect(await opened.diff(base, same)).toEqual([]);
    await expect(opened.diff(base, "nope")).rejects.toThrow(/unknown revision "nope"/);
  });
});
