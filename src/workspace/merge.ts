import { WorkspaceError } from "./errors.js";
import { lastLine } from "./git.js";
import { GitExit, porcelain } from "./porcelain.js";

// What a pull request's change is and what merging it would give, read from git alone: the merge
// bases of base and head (GitHub's "Files changed" is the diff from the merge base), and the tree of
// the merge, built by `git merge-tree --write-tree` without any working copy or index.

/** The result of merging head into base: the merged tree, or the paths that conflict. */
export type MergeResult =
  | { clean: true; tree: string }
  | { clean: false; conflicts: string[] };

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * Every merge base of the two commits, best first (one unless the history criss-crosses); empty
 * when they share no history.
 */
export async function mergeBases(gitDir: string, base: string, head: string): Promise<string[]> {
  let out: string;
  try {
    out = await porcelain(gitDir).raw(["merge-base", "--all", base, head]);
  } catch (err) {
    // Exit 1 with nothing on stderr is git's way of saying "no common ancestor".
    if (err instanceof GitExit && err.code === 1 && err.stderr.trim() === "") return [];
    throw new WorkspaceError(`cannot find the merge base of ${base} and ${head}: ${gitMessage(err)}`);
  }
  const bases = out.split("\n").map((l) => l.trim()).filter((l) => l.length > 0);
  if (!bases.every((b) => OID.test(b))) throw new WorkspaceError(`unexpected git merge-base output: ${JSON.stringify(out.slice(0, 200))}`);
  return bases;
}

/**
 * Merges head into base as `git merge` would (the ort strategy, rename detection on) and writes
 * only objects: the merged tree, or the conflicting paths. Nothing in the repository's own files
 * can change how it merges: attributes and merge drivers are not read (see SAFE_CONFIG_PAIRS).
 */
export async function mergeTree(gitDir: string, base: string, head: string): Promise<MergeResult> {
  let out: string;
  let conflicted = false;
  try {
    out = await porcelain(gitDir).raw(["merge-tree", "--write-tree", "-z", "--name-only", base, head]);
  } catch (err) {
    if (!(err instanceof GitExit) || err.code !== 1) {
      throw new WorkspaceError(`cannot merge ${head} into ${base}: ${gitMessage(err)}`);
    }
    out = err.stdout;
    conflicted = true;
  }
  const parsed = parseMergeTree(out);
  // Exit 1 is the documented "not clean"; a conflict message without an exit 1 is treated the same.
  if (conflicted || parsed.conflicts.length > 0) {
    return { clean: false, conflicts: parsed.conflicts.length > 0 ? parsed.conflicts : ["(git named no path)"] };
  }
  return { clean: true, tree: parsed.tree };
}

/**
 * Parses `merge-tree --write-tree -z --name-only`: the tree, NUL; the conflicted paths, each NUL;
 * then (after an empty field) messages as `<count>NUL<path>NUL...<type>NUL<text>NUL`. Paths named
 * by a CONFLICT message count as conflicting too.
 */
export function parseMergeTree(out: string): { tree: string; conflicts: string[] } {
  const fields = out.split("\0");
  const tree = fields[0] ?? "";
  if (!OID.test(tree)) throw new WorkspaceError(`unexpected git merge-tree output: ${JSON.stringify(out.slice(0, 200))}`);
  const conflicts = new Set<string>();
  let i = 1;
  for (; i < fields.length && fields[i] !== ""; i++) conflicts.add(fields[i] ?? "");
  i++; // the empty field between the conflicted paths and the messages
  while (i < fields.length && fields[i] !== "") {
    const count = Number(fields[i]);
    if (!Number.isSafeInteger(count) || count < 0) break;
    const paths = fields.slice(i + 1, i + 1 + count);
    const type = fields[i + 1 + count] ?? "";
    if (type.startsWith("CONFLICT")) for (const p of paths) conflicts.add(p);
    i += count + 3;
  }
  return { tree, conflicts: [...conflicts].sort() };
}

function gitMessage(err: unknown): string {
  if (err instanceof GitExit) return lastLine(err.stderr);
  return err instanceof Error ? err.message : String(err);
}
