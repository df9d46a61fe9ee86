import { WorkspaceError } from "./errors.js";
import { lastLine } from "./git.js";
import { GitExit, porcelain } from "./porcelain.js";

// What the base branch's tip has that the head has not (issue 13, the reviewer's brief): the commits
// reachable from the tip but not from the head (`git log head..tip`), newest first, bounded so a
// head that branched years ago costs no more than one that branched yesterday.

export interface CommitSummary {
  sha: string;
  /** The subject line as written: untrusted text, escape before printing. */
  subject: string;
  /** Every path the commit changed against its first parent, sorted. */
  paths: string[];
}

export interface CommitsAhead {
  /** How many commits the tip has that the head has not. */
  total: number;
  /** The newest of them (at most the limit asked for), newest first. */
  commits: CommitSummary[];
}

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * The commits in `head..tip`: how many, and the newest `limit` (no parent before its child) with subject
 * lines and paths.
 * Merges list the paths they change against their first parent (what they brought to the branch).
 */
export async function commitsAhead(gitDir: string, tip: string, head: string, limit: number): Promise<CommitsAhead> {
  const range = `${head}..${tip}`;
  const git = porcelain(gitDir);
  let count: string;
  try {
    count = await git.raw(["rev-list", "--count", range, "--"]);
  } catch (err) {
    throw new WorkspaceError(`cannot list the commits of ${tip} missing from ${head}: ${gitMessage(err)}`);
  }
  const total = Number(count.trim());
  if (!Number.isSafeInteger(total) || total < 0) throw new WorkspaceError(`unexpected git rev-list output: ${JSON.stringify(count.slice(0, 200))}`);
  if (total === 0 || limit <= 0) return { total, commits: [] };
  let out: string;
  try {
    // A NUL opens every record: paths are never empty, so an empty field can only start a commit.
    out = await git.raw([
      "log", "-z", "--topo-order", `--max-count=${limit}`, "--format=%x00%H%x00%s", "--name-only", "--no-renames",
      "--diff-merges=first-parent", "--no-show-signature", range, "--",
    ]);
  } catch (err) {
    throw new WorkspaceError(`cannot read the commits of ${tip} missing from ${head}: ${gitMessage(err)}`);
  }
  return { total, commits: parseLog(out) };
}

/**
 * Parses `log -z --format=%x00%H%x00%s --name-only`: per commit an empty field, the sha, the
 * subject, then its paths (the first after the newline git puts before a diff), each NUL-ended.
 */
export function parseLog(out: string): CommitSummary[] {
  const fields = out.split("\0");
  const commits: CommitSummary[] = [];
  let i = 0;
  while (i + 2 < fields.length) {
    const sha = fields[i + 1] ?? "";
    if (fields[i] !== "" || !OID.test(sha)) throw new WorkspaceError(`unexpected git log output: ${JSON.stringify(out.slice(0, 200))}`);
    const subject = fields[i + 2] ?? "";
    i += 3;
    const paths: string[] = [];
    for (; i < fields.length && fields[i] !== ""; i++) {
      const field = fields[i] ?? "";
      paths.push(paths.length === 0 && field.startsWith("\n") ? field.slice(1) : field);
    }
    commits.push({ sha, subject, paths: paths.sort() });
  }
  return commits;
}

function gitMessage(err: unknown): string {
  if (err instanceof GitExit) return lastLine(err.stderr);
  return err instanceof Error ? err.message : String(err);
}
