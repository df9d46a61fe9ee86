import { WorkspaceError } from "./errors.js";
import type { Submodule } from "./submodules.js";
import { listTree, type TreeEntry } from "./tree.js";
import { MODE_GITLINK, MODE_NONE, MODE_SYMLINK, ZERO_SHA, type DiffFact } from "./types.js";

// What a moved gitlink changes (issue 22). The parent's diff shows one line for a submodule, its
// new commit; but every file in it that differs between the two commits is a changed file of the
// judged tree: the runs see them. So each is listed, with its full path in the parent's tree, and
// the diff claims judge it as if it were in the tree (a frozen test inside the submodule, a file out
// of scope). Nested submodules are followed as the runs' trees are (./submodules.ts).

/** A file inside a submodule that differs between the two trees, as a parent's file fact. */
export interface SubmoduleFileFact extends DiffFact {
  /** The submodule's path in the parent's tree, and its two commits (the zero sha where absent). */
  within: { path: string; from: string; to: string };
}

export interface SubmoduleChanges {
  facts: SubmoduleFileFact[];
  /** Every file inside the old tree's submodules (full paths): what "as of base" holds for them. */
  basePaths: string[];
  /** Submodules whose files could not be compared (fetch refused or failed), with why: never a silent pass. */
  problems: { path: string; why: string }[];
}

interface Flat {
  commit: string;
  gitDir: string;
  tree: string;
}

/** Every submodule of a resolved list, nested ones included, by its full path. */
export function flattenSubmodules(list: readonly Submodule[], prefix = "", into = new Map<string, Flat>()): Map<string, Flat> {
  for (const sub of list) {
    const path = `${prefix}${sub.path}`;
    into.set(path, { commit: sub.commit, gitDir: sub.gitDir, tree: sub.tree });
    flattenSubmodules(sub.nested, `${path}/`, into);
  }
  return into;
}

/**
 * The files that differ inside every submodule whose commit differs between `from` and `to` (each a
 * resolver of the tree's submodules: Repository.submodules). Only called when the parent's diff
 * moves, adds or removes a gitlink; a side that cannot be resolved is a problem naming the gitlinks.
 */
export async function submoduleChanges(
  gitlinks: readonly string[], from: () => Promise<Submodule[]>, to: () => Promise<Submodule[]>,
): Promise<SubmoduleChanges> {
  const problems: SubmoduleChanges["problems"] = [];
  const side = async (resolve: () => Promise<Submodule[]>, which: string): Promise<Map<string, Flat> | null> => {
    try {
      return flattenSubmodules(await resolve());
    } catch (err) {
      const why = `its files on the ${which} could not be compared: ${(err as Error).message}`;
      for (const path of gitlinks) problems.push({ path, why });
      return null;
    }
  };
  const [before, after] = await Promise.all([side(from, "base"), side(to, "head")]);
  if (before === null || after === null) return { facts: [], basePaths: [], problems };
  const basePaths: string[] = [];
  for (const [path, sub] of before) basePaths.push(...(await filesOf(sub)).map((e) => `${path}/${e.path}`));
  const facts: SubmoduleFileFact[] = [];
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const old = before.get(path);
    const now = after.get(path);
    if (old?.commit === now?.commit) continue;
    const within = { path, from: old?.commit ?? ZERO_SHA, to: now?.commit ?? ZERO_SHA };
    facts.push(...compared(path, old === undefined ? [] : await filesOf(old), now === undefined ? [] : await filesOf(now), within));
  }
  return { facts, basePaths, problems };
}

/** A submodule's own files (its nested gitlinks are submodules of their own, compared on their own). */
async function filesOf(sub: Flat): Promise<TreeEntry[]> {
  try {
    return (await listTree(sub.gitDir, sub.tree, true)).filter((e) => e.mode !== MODE_GITLINK);
  } catch (err) {
    throw new WorkspaceError(`cannot list the files of submodule commit ${sub.commit.slice(0, 12)}: ${(err as Error).message}`);
  }
}

/** The file facts of one submodule between two of its trees (no rename detection: both sides are named). */
export function compared(prefix: string, old: readonly TreeEntry[], now: readonly TreeEntry[], within: SubmoduleFileFact["within"]): SubmoduleFileFact[] {
  const oldByPath = new Map(old.map((e) => [e.path, e]));
  const nowByPath = new Map(now.map((e) => [e.path, e]));
  const facts: SubmoduleFileFact[] = [];
  for (const path of [...new Set([...oldByPath.keys(), ...nowByPath.keys()])].sort()) {
    const a = oldByPath.get(path);
    const b = nowByPath.get(path);
    if (a !== undefined && b !== undefined && a.object === b.object && a.mode === b.mode) continue;
    const status = a === undefined ? "A" : b === undefined ? "D" : (a.mode === MODE_SYMLINK) !== (b.mode === MODE_SYMLINK) ? "T" : "M";
    facts.push({
      status, path: `${prefix}/${path}`, oldPath: null, score: null,
      oldMode: a?.mode ?? MODE_NONE, newMode: b?.mode ?? MODE_NONE, oldBlob: a?.object ?? ZERO_SHA, newBlob: b?.object ?? ZERO_SHA,
      size: b?.size ?? null, symlinkTarget: null, submodule: false, binary: false, within,
    });
  }
  return facts;
}
