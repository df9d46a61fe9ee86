import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import { releaseTrees } from "../../src/sandbox/tree-limit.js";

// Builds small real git repositories for tests. A file map describes a commit: a string is file
// content, `{ symlink }` a symbolic link, `{ content, mode: 0o755 }` an executable, null a deletion.

export type FileSpec = string | Buffer | null | { symlink: string } | { content: string | Buffer; mode: number };

const made: string[] = [];
afterAll(() => {
  // Trees bounded by sandbox runs in this test process (src/sandbox/tree-limit.ts): vitest ends its
  // workers without an exit event, so they are unmounted here.
  releaseTrees();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Test Author", GIT_AUTHOR_EMAIL: "author@example.com",
  GIT_COMMITTER_NAME: "Test Committer", GIT_COMMITTER_EMAIL: "committer@example.com",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z", GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
  GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null",
};

export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, ...args], { env: GIT_ENV, encoding: "utf8" }).trim();
}

export function tempDir(prefix = "ranex-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export class TestRepo {
  constructor(readonly dir: string) {}

  static init(): TestRepo {
    const dir = tempDir("ranex-repo-");
    git(dir, "init", "-q", "-b", "main");
    return new TestRepo(dir);
  }

  /** Writes the files, commits everything, returns the commit sha. */
  commit(files: Record<string, FileSpec>, message = "change"): string {
    for (const [path, spec] of Object.entries(files)) {
      const full = join(this.dir, path);
      rmSync(full, { recursive: true, force: true });
      if (spec === null) continue;
      mkdirSync(dirname(full), { recursive: true });
      if (typeof spec === "string" || Buffer.isBuffer(spec)) writeFileSync(full, spec);
      else if ("symlink" in spec) symlinkSync(spec.symlink, full);
      else {
        writeFileSync(full, spec.content);
        chmodSync(full, spec.mode);
      }
    }
    git(this.dir, "add", "-A");
    git(this.dir, "commit", "-q", "--allow-empty", "-m", message);
    return git(this.dir, "rev-parse", "HEAD");
  }

  branch(name: string, from = "main"): void {
    git(this.dir, "checkout", "-q", "-B", name, from);
  }

  checkout(name: string): void {
    git(this.dir, "checkout", "-q", name);
  }
}
