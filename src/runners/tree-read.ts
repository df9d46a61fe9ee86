// Reading a file of the tree a run used (go.mod, Cargo.toml, a test file) while parsing its report.
// The tree is the change's: a symlink could point anywhere on the host, so only regular files are
// read, opened without following a link, and only small ones.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { isAbsolute, join, normalize, sep } from "node:path";

const MAX_BYTES = 1024 * 1024;

export function readTreeFile(treeDir: string, rel: string): string | null {
  if (rel === "" || isAbsolute(rel) || rel.split("/").includes("..")) return null;
  const root = normalize(treeDir);
  const full = normalize(join(root, rel));
  if (!full.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  let fd: number;
  try {
    fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > MAX_BYTES) return null;
    const data = Buffer.alloc(info.size);
    let length = 0;
    while (length < data.length) {
      const read = readSync(fd, data, length, data.length - length, length);
      if (read === 0) break;
      length += read;
    }
    return data.subarray(0, length).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
