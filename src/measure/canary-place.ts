// Where the canaries' test file goes: beside one of the tree's own test files, chosen at random, so
// the runner collects it with the same configuration and conftest files as the tests next to it.
import { randomInt } from "node:crypto";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

export const PYTHON_TEST_FILE = /^(?:test_.+|.+_test)\.py$/;
export const JS_TEST_FILE = /\.(?:test|spec)\.[cm]?[jt]sx?$/;

const SKIPPED = new Set(["node_modules", "__pycache__", "site-packages", "dist-packages", "venv"]);
const MAX_ENTRIES = 5000;

/** The tree's files whose names match, walking at most MAX_ENTRIES entries; hidden folders and installs skipped. */
export async function testFilesIn(treeDir: string, pattern: RegExp): Promise<string[]> {
  const found: string[] = [];
  const queue = [""];
  let entries = 0;
  while (queue.length > 0 && entries < MAX_ENTRIES) {
    const dir = queue.shift() as string;
    const names = await readdir(join(treeDir, dir)).catch(() => [] as string[]);
    for (const name of names.sort()) {
      entries += 1;
      const rel = dir === "" ? name : `${dir}/${name}`;
      const info = await lstat(join(treeDir, rel)).catch(() => null);
      if (info === null) continue;
      if (info.isDirectory() && !name.startsWith(".") && !SKIPPED.has(name)) queue.push(rel);
      else if (info.isFile() && pattern.test(name)) found.push(rel);
    }
  }
  return found;
}

/** A path for a new file named `name` beside a random test file of the tree, or null when it has none. */
export async function besideTestFile(treeDir: string, pattern: RegExp, name: string): Promise<string | null> {
  const files = await testFilesIn(treeDir, pattern);
  if (files.length === 0) return null;
  const chosen = files[randomInt(files.length)] as string;
  const dir = chosen.includes("/") ? chosen.slice(0, chosen.lastIndexOf("/")) : "";
  const path = dir === "" ? name : `${dir}/${name}`;
  // The drawn name is already taken there: one more word, still plausible.
  return files.includes(path) || await lstat(join(treeDir, path)).then(() => true, () => false) ? `${path.replace(/(\.[^.]+(?:\.[^.]+)?)$/, "_more$1")}` : path;
}
