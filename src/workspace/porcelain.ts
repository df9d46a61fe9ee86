import { GitError, simpleGit, type SimpleGit } from "simple-git";
import { gitEnv, SAFE_CONFIG_PAIRS } from "./git.js";

// simple-git for the one-shot commands whose output is text (revisions, merge bases, merge trees).
// Byte-exact plumbing (NUL separated paths, blobs, stdin batches) stays on runGit and cat-file.

/**
 * A git command that exited non-zero; callers decide what an exit code means (merge-tree: 1 =
 * conflicts). A GitError, so simple-git passes it through instead of wrapping it in one.
 */
export class GitExit extends GitError {
  override readonly name = "GitExit";

  constructor(
    readonly code: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(undefined, stderr.trim() || `git exited with code ${code}`);
  }
}

/**
 * A simple-git bound to one bare git dir with the workspace's safety settings. simple-git refuses
 * some of those settings by default (hooksPath, fsmonitor, sshCommand, protocol.*.allow,
 * GIT_CONFIG_GLOBAL, the askpass variables) because a caller could use them to run commands; here
 * they are ours and make git safer (hooks off, no ext:: transport, no prompts), so they are allowed.
 */
export function porcelain(gitDir: string): SimpleGit {
  return simpleGit({
    baseDir: gitDir,
    config: [...SAFE_CONFIG_PAIRS],
    trimmed: false,
    unsafe: {
      allowUnsafeHooksPath: true,
      allowUnsafeFsMonitor: true,
      allowUnsafeSshCommand: true,
      allowUnsafeProtocolOverride: true,
      allowUnsafeConfigPaths: true,
      allowUnsafeAskPass: true,
    },
    // Every non-zero exit rejects with its code and both streams (simple-git's default resolves an
    // exit without stderr, which would hide `merge-tree` conflicts and `merge-base` misses).
    errors: (error, result) => {
      if (result.exitCode === 0) return error;
      const text = (parts: Buffer[]): string => Buffer.concat(parts).toString("utf8");
      return new GitExit(result.exitCode, text(result.stdOut), text(result.stdErr));
    },
  }).env(porcelainEnv(gitDir));
}

/** No command run here opens an editor or a pager; simple-git refuses to run with those set at all. */
const NOT_PASSED = new Set(["editor", "visual", "pager", "prefix"]);

function porcelainEnv(gitDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(gitEnv())) {
    if (value !== undefined && !NOT_PASSED.has(key.toLowerCase())) env[key] = value;
  }
  return { ...env, GIT_DIR: gitDir };
}
