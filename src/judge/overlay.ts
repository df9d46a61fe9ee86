import { lstat, mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * Writes a file at `rel` under `root` without ever following a link: the base tree is untrusted
 * too (a `tests` symlink to /etc must not make the overlay write into the host's /etc).
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
    if (info === null) await mkdir(dir);
    else if (!info.isDirectory()) throw new Error(`refusing to write through ${JSON.stringify(relative(root, dir))}: not a directory`);
  }
  const existing = await lstat(target).catch(() => null);
  if (existing !== null && !existing.isFile()) throw new Error(`refusing to overwrite ${JSON.stringify(rel)}: not a regular file`);
  await writeFile(target, bytes, { flag: existing === null ? "wx" : "w" });
}
