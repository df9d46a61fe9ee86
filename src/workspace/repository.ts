import { addedLines, blobHunks } from "./added-lines.js";
import { withCatFile } from "./cat-file.js";
import { diffFacts, type DiffOptions } from "./diff.js";
import { WorkspaceError } from "./errors.js";
import { materialise } from "./materialise.js";
import { mergeBases, mergeTree, type MergeResult } from "./merge.js";
import { assertSafeRef, ensureMirror, fetchInto, fetchLocation, mirrorDirFor, withMirrorLock } from "./mirror.js";
import { DEFAULT_SUBMODULE_BYTES, resolveSubmodules, type Submodule, type SubmoduleSource } from "./submodules.js";
import { submoduleAccess, type SubmoduleAccess } from "./submodule-url.js";
import { commitsAhead, type CommitsAhead } from "./history.js";
import { GitExit, porcelain } from "./porcelain.js";
import { entryAt, listTree } from "./tree.js";
import { MODE_SYMLINK, type AddedLines, type DiffFact, type Hunk } from "./types.js";

export interface Repository {
  /** The source as given (local path or URL). */
  readonly source: string;
  /** The bare mirror under the data dir. */
  readonly mirrorDir: string;
  /** Full commit sha of a branch or tag of the source, a sha, or a fetched ref (refs/pull/N/head). */
  resolveCommit(rev: string): Promise<string>;
  /** The tree of a commit (or a tree id, returned as is). */
  treeOf(treeish: string): Promise<string>;
  /** The file's exact bytes on a commit or tree; null when the path is absent there. */
  readBlob(treeish: string, path: string, maxBytes: number): Promise<Buffer | null>;
  /** Many regular files of one tree at once (one git process): missing, links and larger files left out. */
  readBlobs(treeish: string, paths: readonly string[], maxBytes: number): Promise<Map<string, Buffer>>;
  listFiles(treeish: string): Promise<{ path: string; mode: string; blob: string }[]>;
  /** Every symlink of a tree, path -> target (read from the link's blob; one cat-file for all). */
  symlinks(treeish: string): Promise<Map<string, string>>;
  diff(base: string, head: string, options?: DiffOptions): Promise<DiffFact[]>;
  addedLines(facts: DiffFact[], maxBytes: number): Promise<AddedLines[]>;
  /** The -U0 hunks of one blob against another, numbered on the old side. */
  hunks(oldBlob: string, newBlob: string): Promise<Hunk[]>;
  /** Writes a commit's tree, or a tree, into dest (absent or empty) without .git, its submodules filled. */
  materialise(treeish: string, dest: string): Promise<void>;
  /**
   * The submodules of a tree, fetched (once per tree) at the commits its gitlinks record; a
   * SubmoduleError names the one that cannot be had and why.
   */
  submodules(treeish: string): Promise<Submodule[]>;
  /** The same repository with every tree's submodules held to `bytes` together (the policy's `sandbox.tree_mb`). */
  withSubmoduleLimit(bytes: number): Repository;
  /** Every merge base of two commits, best first; empty when they share no history. */
  mergeBases(base: string, head: string): Promise<string[]>;
  /** Head merged into base (`git merge-tree --write-tree`): the merged tree or the conflicting paths. */
  mergeTree(base: string, head: string): Promise<MergeResult>;
  /** The commits the base tip has that head has not (`head..base`): how many, and the newest `limit`. */
  commitsAhead(base: string, head: string, limit: number): Promise<CommitsAhead>;
}

export interface OpenOptions {
  /** Extra `key=value` git config for fetches only (e.g. http.extraHeader=...); never written to disk. */
  gitConfig?: string[];
  /** Extra refs to fetch besides heads and tags, e.g. refs/pull/7/head. */
  refs?: string[];
  /** Where submodules may come from; default: the operator's environment (`submoduleAccess`). */
  submodules?: SubmoduleAccess;
}

const MAX_LINK_TARGET = 4096;
const BASE_REFSPECS = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"];
const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** Opens (creating or updating) the mirror of `source` under `dataDir` and fetches heads, tags and `refs`. */
export async function openRepository(source: string, dataDir: string, options: OpenOptions = {}): Promise<Repository> {
  if (source.trim() === "") throw new WorkspaceError("no repository given");
  if (source.startsWith("-")) throw new WorkspaceError(`cannot read repository ${source}: a source may not start with '-'`);
  const refs = options.refs ?? [];
  refs.forEach(assertSafeRef);
  const mirrorDir = mirrorDirFor(source, dataDir);
  const gitConfig = options.gitConfig ?? [];
  await withMirrorLock(mirrorDir, async () => {
    await ensureMirror(mirrorDir);
    await fetchInto(mirrorDir, source, [...BASE_REFSPECS, ...refs.map((r) => `+${r}:${r}`)], { gitConfig });
  });
  const submodules: SubmoduleSource = {
    dataDir, access: options.submodules ?? submoduleAccess(process.env), parent: fetchLocation(source), gitConfig, maxBytes: DEFAULT_SUBMODULE_BYTES,
  };
  return new MirrorRepository(source, mirrorDir, gitConfig, submodules);
}

class MirrorRepository implements Repository {
  constructor(
    readonly source: string,
    readonly mirrorDir: string,
    private readonly gitConfig: readonly string[],
    private readonly submoduleSource: SubmoduleSource,
  ) {}

  /** A tree's submodules are resolved once per handle: every copy of the head shares one fetch. */
  private readonly resolved = new Map<string, Promise<Submodule[]>>();

  async submodules(treeish: string): Promise<Submodule[]> {
    const tree = await this.tree(treeish);
    let found = this.resolved.get(tree);
    if (found === undefined) {
      found = resolveSubmodules(this.mirrorDir, tree, this.submoduleSource);
      found.catch(() => this.resolved.delete(tree));
      this.resolved.set(tree, found);
    }
    return found;
  }

  withSubmoduleLimit(bytes: number): Repository {
    return new MirrorRepository(this.source, this.mirrorDir, this.gitConfig, { ...this.submoduleSource, maxBytes: bytes });
  }

  async resolveCommit(rev: string): Promise<string> {
    assertSafeRev(rev);
    const found = await this.tryResolve(rev);
    if (found !== null) return found;
    // Not among the fetched heads and tags: a sha or ref the source still has may be fetched on demand.
    const refspec = FULL_SHA.test(rev) ? `${rev}:refs/ranex/commits/${rev}` : rev.startsWith("refs/") ? `+${rev}:${rev}` : null;
    if (refspec !== null) {
      if (rev.startsWith("refs/")) assertSafeRef(rev);
      await withMirrorLock(this.mirrorDir, () => fetchInto(this.mirrorDir, this.source, [refspec], { gitConfig: this.gitConfig })).catch(() => undefined);
      const fetched = await this.tryResolve(rev);
      if (fetched !== null) return fetched;
    }
    throw new WorkspaceError(`unknown revision ${JSON.stringify(rev)} in ${this.source}`);
  }

  async treeOf(treeish: string): Promise<string> {
    return this.tree(treeish);
  }

  async readBlob(treeish: string, path: string, maxBytes: number): Promise<Buffer | null> {
    if (path === "" || path.startsWith("/") || path.endsWith("/") || path.includes("\0")) {
      throw new WorkspaceError(`not a file path: ${JSON.stringify(path)}`);
    }
    const sha = await this.tree(treeish);
    const entry = await entryAt(this.mirrorDir, sha, path);
    if (entry === null) return null;
    if (entry.type !== "blob" || entry.mode === "120000") {
      throw new WorkspaceError(`${path} on ${sha} is not a regular file (mode ${entry.mode})`);
    }
    if (entry.size === null || entry.size > maxBytes) {
      throw new WorkspaceError(`${path} on ${sha} is ${entry.size ?? "of unknown size"} bytes, more than the limit of ${maxBytes}`);
    }
    return withCatFile(this.mirrorDir, async (batch) => (await batch.readBuffer(entry.object, maxBytes, path)).content);
  }

  /**
   * Many regular files of one tree, through one `git cat-file --batch`: path -> content. Paths the
   * tree lacks, links, and files larger than `maxBytes` are left out (the caller says what that means).
   */
  async readBlobs(treeish: string, paths: readonly string[], maxBytes: number): Promise<Map<string, Buffer>> {
    const wanted = new Set(paths);
    const entries = (await this.listFiles(treeish)).filter((f) => wanted.has(f.path) && f.mode.startsWith("100"));
    const found = new Map<string, Buffer>();
    if (entries.length === 0) return found;
    await withCatFile(this.mirrorDir, async (batch) => {
      for (const entry of entries) {
        const read = await batch.readBuffer(entry.blob, maxBytes, entry.path).catch(() => null);
        if (read !== null) found.set(entry.path, read.content);
      }
    });
    return found;
  }

  async symlinks(treeish: string): Promise<Map<string, string>> {
    const links = (await this.listFiles(treeish)).filter((f) => f.mode === MODE_SYMLINK);
    const found = new Map<string, string>();
    if (links.length === 0) return found;
    await withCatFile(this.mirrorDir, async (batch) => {
      for (const link of links) {
        // A target longer than any path the kernel resolves (PATH_MAX) is no honest link: left out,
        // it resolves as a plain folder, and a changed one is reported from its diff fact.
        const { content } = await batch.readBuffer(link.blob, MAX_LINK_TARGET, link.path).catch(() => ({ content: null }));
        if (content !== null) found.set(link.path, content.toString("utf8"));
      }
    });
    return found;
  }

  /** A tree never changes, so its listing is read once per repository handle (the judge, the run plan and the dependency key all ask for the base's). */
  private readonly listings = new Map<string, Promise<readonly { path: string; mode: string; blob: string }[]>>();

  async listFiles(treeish: string): Promise<{ path: string; mode: string; blob: string }[]> {
    const tree = await this.tree(treeish);
    let listing = this.listings.get(tree);
    if (listing === undefined) {
      listing = listTree(this.mirrorDir, tree, false).then((entries) => entries.map((e) => ({ path: e.path, mode: e.mode, blob: e.object })));
      // A failed read is not kept: the next caller asks git again.
      listing.catch(() => this.listings.delete(tree));
      this.listings.set(tree, listing);
    }
    return [...await listing];
  }

  async diff(base: string, head: string, options: DiffOptions = {}): Promise<DiffFact[]> {
    return diffFacts(this.mirrorDir, await this.commit(base), await this.commit(head), options);
  }

  addedLines(facts: DiffFact[], maxBytes: number): Promise<AddedLines[]> {
    return addedLines(this.mirrorDir, facts, maxBytes);
  }

  hunks(oldBlob: string, newBlob: string): Promise<Hunk[]> {
    return blobHunks(this.mirrorDir, oldBlob, newBlob);
  }

  async materialise(treeish: string, dest: string): Promise<void> {
    const tree = await this.tree(treeish);
    await materialise(this.mirrorDir, tree, dest, await this.submodules(tree));
  }

  async mergeBases(base: string, head: string): Promise<string[]> {
    return mergeBases(this.mirrorDir, await this.commit(base), await this.commit(head));
  }

  async mergeTree(base: string, head: string): Promise<MergeResult> {
    return mergeTree(this.mirrorDir, await this.commit(base), await this.commit(head));
  }

  async commitsAhead(base: string, head: string, limit: number): Promise<CommitsAhead> {
    return commitsAhead(this.mirrorDir, await this.commit(base), await this.commit(head), limit);
  }

  /** The full sha of a commit already in the mirror (no fetch); every method accepts any revision. */
  private async commit(rev: string): Promise<string> {
    assertSafeRev(rev);
    const found = await this.tryResolve(rev);
    if (found === null) throw new WorkspaceError(`unknown revision ${JSON.stringify(rev)} in ${this.source}`);
    return found;
  }

  /** The tree id of a revision or tree already in the mirror: commits are peeled, trees kept. */
  private async tree(treeish: string): Promise<string> {
    assertSafeRev(treeish);
    const found = await this.tryResolve(treeish, "tree");
    if (found === null) throw new WorkspaceError(`unknown revision or tree ${JSON.stringify(treeish)} in ${this.source}`);
    return found;
  }

  private async tryResolve(rev: string, type: "commit" | "tree" = "commit"): Promise<string | null> {
    let out: string;
    try {
      out = await porcelain(this.mirrorDir).revparse(["--verify", "--quiet", `${rev}^{${type}}`]);
    } catch (err) {
      if (err instanceof GitExit) return null;
      throw err;
    }
    const sha = out.trim();
    return FULL_SHA.test(sha) ? sha : null;
  }
}

function assertSafeRev(rev: string): void {
  // A leading '-' would be read as an option; control characters have no place in a revision.
  // eslint-disable-next-line no-control-regex
  if (rev === "" || rev.startsWith("-") || /[\x00-\x20\x7f]/.test(rev)) {
    throw new WorkspaceError(`not a revision: ${JSON.stringify(rev)}`);
  }
}
