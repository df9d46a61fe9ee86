// What `ranex init` leaves behind, as a commit the sandbox can run: HEAD plus the files init changed
// in the working tree (`--add-deps` edits package.json and its lock file), built with git plumbing
// in a temporary index. The owner's index, HEAD and branches are never touched: the commit is on no
// ref, and its objects are loose ones git's gc removes in time.
import { lstat, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

/** The files a package manager writes when it adds a dependency. */
export const MANIFEST_FILES: readonly string[] = ["package.json", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml"];

/** The subset of `paths` whose working-tree state differs from HEAD (changed, added or deleted). */
export async function changedFromHead(dir: string, paths: readonly string[]): Promise<string[]> {
  const status = await git(dir, {}, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ...paths]);
  return status.split("\0").filter((entry) => entry.length > 3).map((entry) => entry.slice(3)).filter((p) => paths.includes(p));
}

/** A commit of `head` with `paths` as the working tree has them (absent: deleted). */
export async function commitWithWorkingTree(dir: string, head: string, paths: readonly string[]): Promise<string> {
  const scratch = await mkdtemp(join(tmpdir(), "ranex-init-index-"));
  const env = {
    GIT_INDEX_FILE: join(scratch, "index"),
    GIT_AUTHOR_NAME: "ranex init", GIT_AUTHOR_EMAIL: "init@ranex.invalid",
    GIT_COMMITTER_NAME: "ranex init", GIT_COMMITTER_EMAIL: "init@ranex.invalid",
  };
  try {
    await git(dir, env, ["read-tree", head]);
    for (const path of paths) {
      const info = await lstat(join(dir, path)).catch(() => null);
      if (info === null || !info.isFile()) {
        await git(dir, env, ["update-index", "--force-remove", "--", path]);
        continue;
      }
      const blob = (await git(dir, env, ["hash-object", "-w", "--", path])).trim();
      const mode = (info.mode & 0o111) !== 0 ? "100755" : "100644";
      await git(dir, env, ["update-index", "--add", "--cacheinfo", `${mode},${blob},${path}`]);
    }
    const tree = (await git(dir, env, ["write-tree"])).trim();
    return (await git(dir, env, ["commit-tree", tree, "-p", head, "-m", "ranex init: HEAD with init's uncommitted changes (on no branch)"])).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function git(dir: string, env: Record<string, string>, args: string[]): Promise<string> {
  // The owner's GIT_DIR or GIT_INDEX_FILE from a hook must not redirect any of this.
  const result = await execa("git", ["-C", dir, ...args], { env: { GIT_DIR: undefined, GIT_WORK_TREE: undefined, GIT_INDEX_FILE: undefined, ...env } });
  return result.stdout;
}
