import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, symlink, type FileHandle } from "node:fs/promises";
import { withCatFile } from "./cat-file.js";
import { MAX_SYMLINK_TARGET } from "./diff.js";
import { WorkspaceError } from "./errors.js";
import type { Submodule } from "./submodules.js";
import { listTree, unsafePathReason, type TreeEntry } from "./tree.js";

// Writes a commit's tree into a directory for measurement: the exact committed bytes (no eol
// conversion, filters, LFS smudge or export-subst; that is why neither `git archive` nor
// `checkout-index` is used), exec bits from the mode, symlinks as symlinks, gitlinks as directories
// holding their submodule's tree when it is given (./submodules.ts resolves and fetches them first;
// empty otherwise), and no `.git`. Nothing is ever written through a symlink.

const FILE_MODES: Record<string, number> = { "100644": 0o644, "100664": 0o644, "100755": 0o755 };

export async function materialise(gitDir: string, commit: string, dest: string, submodules: readonly Submodule[] = []): Promise<void> {
  const entries = await listTree(gitDir, commit, true);
  // Refuse before writing anything, so a refused tree leaves no half-written directory behind.
  for (const entry of entries) {
    const reason = unsafePathReason(entry.rawPath);
    if (reason !== null) throw new WorkspaceError(`cannot materialise ${commit}: ${JSON.stringify(entry.path)} is unsafe (${reason})`);
    if (!(entry.mode in FILE_MODES) && entry.mode !== "120000" && entry.mode !== "160000") {
      throw new WorkspaceError(`cannot materialise ${commit}: ${JSON.stringify(entry.path)} has unsupported mode ${entry.mode}`);
    }
    if (entry.mode === "120000" && (entry.size ?? 0) > MAX_SYMLINK_TARGET) {
      throw new WorkspaceError(`cannot materialise ${commit}: symlink ${JSON.stringify(entry.path)} has a target longer than ${MAX_SYMLINK_TARGET} bytes`);
    }
  }
  await prepareDestination(dest);
  const writer = new TreeWriter(Buffer.from(dest));
  const gitlinks: { submodule: Submodule; target: Buffer }[] = [];
  await withCatFile(gitDir, async (batch) => {
    for (const entry of entries) {
      const target = await writer.parentFor(entry);
      if (entry.mode === "160000") {
        await create(entry, () => mkdir(target));
        writer.created.add(target.toString("latin1"));
        const submodule = submodules.find((s) => s.path === entry.path);
        if (submodule !== undefined && !Buffer.from(entry.path).equals(entry.rawPath)) {
          throw new WorkspaceError(`cannot materialise submodule ${JSON.stringify(entry.path)}: its path is not UTF-8`);
        }
        if (submodule !== undefined) gitlinks.push({ submodule, target });
      } else if (entry.mode === "120000") {
        const { content } = await batch.readBuffer(entry.object, MAX_SYMLINK_TARGET, `the symlink target of ${entry.path}`);
        if (content.includes(0)) throw new WorkspaceError(`cannot materialise ${commit}: symlink ${JSON.stringify(entry.path)} has a NUL in its target`);
        await create(entry, () => symlink(content, target));
      } else {
        await writeBlob(target, FILE_MODES[entry.mode] ?? 0o644, (handle) =>
          batch.read(entry.object, (chunk) => writeAll(handle, chunk)).then(() => undefined),
        );
      }
    }
  });
  // Each into the folder this call just made for its gitlink (a crafted tree that also wrote into it
  // makes it non-empty, and the submodule is refused): never through a path the tree could aim.
  for (const { submodule, target } of gitlinks) {
    await materialise(submodule.gitDir, submodule.tree, target.toString("utf8"), submodule.nested);
  }
}

/** Runs a creating call; a name that already exists (a crafted tree with duplicates) is refused. */
async function create(entry: TreeEntry, make: () => Promise<unknown>): Promise<void> {
  try {
    await make();
  } catch (e) {
    throw new WorkspaceError(`cannot materialise ${JSON.stringify(entry.path)}: ${(e as Error).message}`);
  }
}

async function prepareDestination(dest: string): Promise<void> {
  const stat = await lstat(dest).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return null;
    throw new WorkspaceError(`cannot use ${dest} as a workspace: ${e.message}`);
  });
  if (stat === null) {
    await mkdir(dest, { recursive: true });
    return;
  }
  if (!stat.isDirectory()) throw new WorkspaceError(`cannot use ${dest} as a workspace: it exists and is not a directory`);
  if ((await readdir(dest)).length > 0) throw new WorkspaceError(`cannot use ${dest} as a workspace: it is not empty`);
}

/** Tracks the directories this call created; only those may hold what it writes. */
class TreeWriter {
  readonly created = new Set<string>();

  constructor(private readonly root: Buffer) {
    this.created.add(root.toString("latin1"));
  }

  /** The absolute target of an entry, after creating its parent directories. */
  async parentFor(entry: TreeEntry): Promise<Buffer> {
    const components = splitBytes(entry.rawPath);
    let dir = this.root;
    for (const component of components.slice(0, -1)) {
      dir = joinBytes(dir, component);
      const key = dir.toString("latin1");
      if (this.created.has(key)) continue;
      try {
        await mkdir(dir);
      } catch (e) {
        // Something other than our own directory is there (a symlink or file of the same name,
        // from a crafted tree): writing below it could escape the workspace.
        throw new WorkspaceError(`cannot materialise ${JSON.stringify(entry.path)}: its parent is not a directory of the tree (${(e as Error).message})`);
      }
      this.created.add(key);
    }
    const last = components.at(-1);
    if (last === undefined) throw new WorkspaceError(`cannot materialise an empty path`);
    return joinBytes(dir, last);
  }
}

async function writeBlob(target: Buffer, mode: number, fill: (handle: FileHandle) => Promise<void>): Promise<void> {
  let handle: FileHandle;
  try {
    // O_EXCL|O_NOFOLLOW: never reuse or follow whatever is already at the path.
    handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (e) {
    throw new WorkspaceError(`cannot write ${target.toString("utf8")}: ${(e as Error).message}`);
  }
  try {
    await fill(handle);
    await handle.chmod(mode); // the umask must not change the committed exec bit
  } finally {
    await handle.close();
  }
}

async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

function splitBytes(path: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = path.indexOf(0x2f); i !== -1; i = path.indexOf(0x2f, start)) {
    parts.push(path.subarray(start, i));
    start = i + 1;
  }
  parts.push(path.subarray(start));
  return parts;
}

function joinBytes(dir: Buffer, name: Buffer): Buffer {
  return Buffer.concat([dir, Buffer.from("/"), name]);
}
