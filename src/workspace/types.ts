// Facts about a change, read from git. Plain data: the claims in src/measure judge them.

export type ChangeStatus = "A" | "M" | "D" | "R" | "C" | "T";

/** Git modes as git prints them: 100644, 100755, 120000 (symlink), 160000 (gitlink), 040000. */
export type GitMode = string;

export const MODE_SYMLINK = "120000";
export const MODE_GITLINK = "160000";
export const MODE_NONE = "000000";
export const ZERO_SHA = "0000000000000000000000000000000000000000";

/** One entry of `git diff --raw -z -M` between the base and head trees, with what it points to. */
export interface DiffFact {
  status: ChangeStatus;
  /** The path on head (for D: the deleted path). Raw bytes decoded as UTF-8; never quoted. */
  path: string;
  /** For R and C: the path on base. Otherwise null. */
  oldPath: string | null;
  /** Rename or copy similarity (0-100), or null. */
  score: number | null;
  oldMode: GitMode;
  newMode: GitMode;
  oldBlob: string;
  newBlob: string;
  /** Size in bytes of the new blob (null for D and gitlinks). */
  size: number | null;
  /** For a symlink on head: its target as stored in the blob. */
  symlinkTarget: string | null;
  /** True when either side is a gitlink (submodule). */
  submodule: boolean;
  /** True when git sees the new blob as binary. */
  binary: boolean;
}

/** The lines a change adds to one file, reconstructed without the patch's `+` prefixes. */
export interface AddedLines {
  path: string;
  /** 1-based line numbers in the head version of the file. */
  lines: { line: number; text: string }[];
  /**
   * Set when the file's lines were not read, with the reason (binary, submodule, symlink, too
   * large): a scanner must report these rather than treat them as clean.
   */
  skipped?: string;
}

/** One hunk of a -U0 diff of a file: `oldCount` base lines from `oldStart` replaced by `added`. */
export interface Hunk {
  /** For a pure insertion (`oldCount` 0): the base line the new lines follow (0: the top). */
  oldStart: number;
  oldCount: number;
  added: string[];
}
