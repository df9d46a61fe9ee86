import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { execa } from "execa";

// A revision named on the command line means what it means in the user's checkout: `--rev HEAD` is
// the commit checked out there, `HEAD~1` the one before it. The gate's mirror of a local repository
// has only its branches and tags, and the mirror's own HEAD is the clone's default branch, so a
// relative or symbolic name is resolved in the checkout first and handed on as a full sha (which the
// mirror fetches on demand). URLs, and names the checkout does not know, pass through unchanged.

export async function revInCheckout(source: string, rev: string, cwd: string = process.cwd()): Promise<string> {
  const dir = resolve(cwd, source);
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(rev) || rev.startsWith("-") || !existsSync(dir)) return rev;
  // GIT_DIR or GIT_WORK_TREE inherited from a hook would point at another repository.
  const found = await execa("git", ["-C", dir, "rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`], {
    reject: false, env: { GIT_DIR: undefined, GIT_WORK_TREE: undefined },
  });
  const sha = found.stdout.trim();
  return found.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(sha) ? sha : rev;
}
