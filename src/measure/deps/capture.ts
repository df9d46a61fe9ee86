// What a setup produced: the entries it created in the tree (node_modules/, .venv/, an egg-info).
// Only new entries are kept, topmost first; a file the setup changed in place is named, not kept,
// because runs of other trees must see their own version of it.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/** Every path in the tree (relative), directories included, not descending into `skip`. */
export async function listTree(root: string, skip: (rel: string) => boolean = () => false): Promise<Set<string>> {
  const found = new Set<string>();
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(rel === "" ? root : join(root, rel), { withFileTypes: true });
    for (const entry of entries) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      found.add(path);
      if (entry.isDirectory() && !skip(path)) await walk(path);
    }
  };
  await walk("");
  return found;
}

/** The topmost entries of `after` that `before` did not have. */
export async function createdEntries(root: string, before: ReadonlySet<string>): Promise<string[]> {
  const created: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(rel === "" ? root : join(root, rel), { withFileTypes: true });
    for (const entry of entries) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (!before.has(path)) created.push(path);
      else if (entry.isDirectory() && !(await lstat(join(root, path))).isSymbolicLink()) await walk(path);
    }
  };
  await walk("");
  return created.sort();
}
