import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { GIT_ENV, git, type TestRepo } from "../helpers/git-repo.js";

// Shapes TestRepo.commit cannot make through a work tree: gitlinks, and crafted trees holding paths
// git would never check out (`..`, `.GIT`, duplicates), built object by object like an attacker would.

function gitBytes(dir: string, args: string[], input?: Buffer | string): string {
  return execFileSync("git", ["-C", dir, ...args], { env: GIT_ENV, input, encoding: "utf8" }).trim();
}

/** Commits a gitlink (submodule entry) at `path` pointing to `sha`; an empty directory keeps it staged. */
export function commitGitlink(repo: TestRepo, path: string, sha: string, message = "add submodule"): string {
  git(repo.dir, "update-index", "--add", "--cacheinfo", `160000,${sha},${path}`);
  mkdirSync(join(repo.dir, path), { recursive: true });
  git(repo.dir, "commit", "-q", "-m", message);
  return git(repo.dir, "rev-parse", "HEAD");
}

export interface CraftedEntry {
  /** Slash-separated; each component becomes a tree entry verbatim. */
  path: string | Buffer;
  mode: "100644" | "100755" | "120000" | "160000";
  /** Blob content, or the commit sha for a gitlink. */
  content: string | Buffer;
}

/** Writes blobs and nested trees with `git mktree` (which checks no names) and commits them on `parent`. */
export function craftCommit(repoDir: string, entries: CraftedEntry[], parent?: string): string {
  const tree = buildTree(repoDir, entries.map((e) => ({ ...e, parts: splitPath(Buffer.from(e.path)) })));
  const args = ["commit-tree", tree, "-m", "crafted", ...(parent ? ["-p", parent] : [])];
  return gitBytes(repoDir, args);
}

type Pending = CraftedEntry & { parts: Buffer[] };

function buildTree(repoDir: string, entries: Pending[]): string {
  const lines: Buffer[] = [];
  const subdirs = new Map<string, Pending[]>();
  for (const entry of entries) {
    const [name, ...rest] = entry.parts;
    if (name === undefined) continue;
    if (rest.length > 0) {
      const key = name.toString("latin1");
      subdirs.set(key, [...(subdirs.get(key) ?? []), { ...entry, parts: rest }]);
      continue;
    }
    const sha = entry.mode === "160000"
      ? String(entry.content)
      : gitBytes(repoDir, ["hash-object", "-w", "--stdin"], Buffer.from(entry.content));
    const type = entry.mode === "160000" ? "commit" : "blob";
    lines.push(Buffer.concat([Buffer.from(`${entry.mode} ${type} ${sha}\t`), name, Buffer.from([0])]));
  }
  for (const [key, children] of subdirs) {
    const sha = buildTree(repoDir, children);
    lines.push(Buffer.concat([Buffer.from(`040000 tree ${sha}\t`), Buffer.from(key, "latin1"), Buffer.from([0])]));
  }
  return gitBytes(repoDir, ["mktree", "-z", "--missing"], Buffer.concat(lines));
}

function splitPath(path: Buffer): Buffer[] {
  return path.toString("latin1").split("/").map((p) => Buffer.from(p, "latin1"));
}

/** Points a branch of the repository at a commit (crafted commits are not on any branch yet). */
export function setBranch(repoDir: string, name: string, sha: string): void {
  git(repoDir, "update-ref", `refs/heads/${name}`, sha);
}
