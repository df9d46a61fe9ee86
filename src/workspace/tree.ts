import { WorkspaceError } from "./errors.js";
import { gitOrThrow, splitNul } from "./git.js";

// Reading trees with `git ls-tree -z` (NUL separated, never quoted), keeping the raw path bytes:
// a path that is not valid UTF-8 must still be written back exactly as committed.

export interface TreeEntry {
  path: string;
  rawPath: Buffer;
  mode: string;
  type: string;
  object: string;
  /** Present when listed with sizes (-l); null for gitlinks and trees. */
  size: number | null;
}

/** Every leaf of the commit's tree (gitlinks included), optionally with blob sizes. */
export async function listTree(gitDir: string, commit: string, withSizes: boolean): Promise<TreeEntry[]> {
  const args = ["ls-tree", "-r", "-z", "--full-tree", ...(withSizes ? ["-l"] : []), commit];
  const out = await gitOrThrow(gitDir, args, `cannot list the files of ${commit}`);
  return splitNul(out).map(parseEntry);
}

/** The entry at exactly `path` on the commit, or null when nothing is there. */
export async function entryAt(gitDir: string, commit: string, path: string): Promise<TreeEntry | null> {
  // GIT_LITERAL_PATHSPECS (set for every call) makes the path literal: no globs, no magic.
  const out = await gitOrThrow(gitDir, ["ls-tree", "-z", "-l", "--full-tree", commit, "--", path], `cannot read ${path} on ${commit}`);
  const found = splitNul(out).map(parseEntry).find((e) => e.path === path);
  return found ?? null;
}

function parseEntry(record: Buffer): TreeEntry {
  const tab = record.indexOf(9);
  if (tab === -1) throw new WorkspaceError(`unexpected git ls-tree output: ${JSON.stringify(record.toString("utf8"))}`);
  const meta = record.subarray(0, tab).toString("utf8").split(/ +/);
  const [mode, type, object, size] = meta;
  if (mode === undefined || type === undefined || object === undefined) {
    throw new WorkspaceError(`unexpected git ls-tree output: ${JSON.stringify(record.toString("utf8"))}`);
  }
  const rawPath = Buffer.from(record.subarray(tab + 1));
  return {
    path: rawPath.toString("utf8"),
    rawPath,
    mode,
    type,
    object,
    size: size === undefined || size === "-" ? null : Number(size),
  };
}

/**
 * Why a committed path cannot be written safely, or null when it can. Git itself refuses these on
 * checkout; a crafted tree can still contain them, so they are checked on the raw bytes.
 */
export function unsafePathReason(rawPath: Buffer): string | null {
  if (rawPath.length === 0) return "the path is empty";
  if (rawPath[0] === 0x2f) return "the path is absolute";
  for (const byte of rawPath) {
    if (byte < 0x20 || byte === 0x7f) return "the path contains a control character";
  }
  for (const component of rawPath.toString("latin1").split("/")) {
    if (component === "") return "the path has an empty component";
    if (component === "." || component === "..") return `the path has a '${component}' component`;
    if (component.toLowerCase() === ".git") return "the path has a '.git' component";
  }
  return null;
}
