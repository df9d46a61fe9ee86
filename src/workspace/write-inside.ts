// Path-safe writing into a materialised tree (the overlay of new tests, reverted mutant hunks, sealed
// tests): shared by judge/ and measure/, so it lives with the tree it writes into.
import { lstat, mkdir, rm, unlink, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * Writes a file at `rel` under `root` without ever following a link: the base tree is untrusted
 * too (a `tests` symlink to /etc must not make the overlay write into the host's /etc). What stands
 * in the way is replaced, never written through: a file or link where the head has a folder (a path
 * that turned from file into folder) is removed and the folder made; a folder or link where the head
 * has a file is removed and the file written.
 */
export async function writeInside(root: string, rel: string, bytes: Uint8Array): Promise<void> {
  const target = resolve(root, rel);
  const back = relative(root, target);
  if (back === "" || back.startsWith("..") || back.split(sep).includes("..") || resolve(root, back) !== target) {
    throw new Error(`refusing to write outside the tree: ${JSON.stringify(rel)}`);
  }
  let dir = root;
  for (const part of dirname(back).split(sep).filter((p) => p !== "." && p !== "")) {
    dir = join(dir, part);
    const info = await lstat(dir).catch(() => null);
    if (info !== null && info.isDirectory()) continue;
    if (info !== null) await unlink(dir); // a file or a link: removes the link itself, never its target
    await mkdir(dir);
  }
  const existing = await lstat(target).catch(() => null);
  if (existing !== null && !existing.isFile()) await rm(target, { recursive: true, force: true });
  await writeFile(target, bytes, { flag: existing !== null && existing.isFile() ? "w" : "wx" });
}
