import { boundedFetch, FetchLimitError, type FetchBound } from "./bounded-fetch.js";
import { WorkspaceError } from "./errors.js";
import { gitOrThrow, lastLine, runGit, splitNul } from "./git.js";
import { ensureMirror, mirrorDirFor, withMirrorLock } from "./mirror.js";
import { DEFAULT_SUBMODULE_FETCH_SECONDS, resolveSubmoduleUrl, sameOwner, type SubmoduleAccess } from "./submodule-url.js";
import { entryAt, listTree, unsafePathReason, type TreeEntry } from "./tree.js";
import { MODE_GITLINK, MODE_SYMLINK } from "./types.js";

// Submodules in judged trees (issue 22): each gitlink of a tree is filled with the commit it records,
// fetched by this (trusted) process from the URL the same tree's `.gitmodules` gives, never by code
// under test. Everything is decided before anything is written: a submodule that cannot be had (no
// URL, a URL the operator does not allow, a commit the remote does not have, too deep, too large)
// refuses the whole tree with a reason naming it, never an empty folder where its files should be.

/** A submodule that cannot be laid out; the message names it and says why. */
export class SubmoduleError extends WorkspaceError {}

/** Bytes all submodules of a tree may hold together when the policy names no `sandbox.tree_mb`. */
export const DEFAULT_SUBMODULE_BYTES = 1024 * 1024 * 1024;
const MAX_GITMODULES_BYTES = 64 * 1024;
/** What a download may take beyond the files' own bytes: commits, trees, pack headers. */
const PACK_ALLOWANCE = 1024 * 1024;

export interface SubmoduleSource {
  dataDir: string;
  access: SubmoduleAccess;
  /** Where the superproject came from: relative URLs resolve against it, credentials go to its owner only. */
  parent: string;
  /** The superproject's fetch config (a token header): given to a submodule's fetch on the same host and owner only. */
  gitConfig: readonly string[];
  /** Bytes of every submodule's files together (a tree's limit, `sandbox.tree_mb`). */
  maxBytes: number;
}

/** One submodule ready to be written: its commit's tree, in the mirror that holds it. */
export interface Submodule {
  path: string;
  url: string;
  commit: string;
  gitDir: string;
  tree: string;
  nested: Submodule[];
}

interface Declared {
  name: string;
  path?: string;
  url?: string;
}

/** Every submodule of `tree` in `gitDir`, fetched and measured, nested ones included (to `access.depth`). */
export async function resolveSubmodules(gitDir: string, tree: string, source: SubmoduleSource): Promise<Submodule[]> {
  const budget = { left: source.maxBytes };
  return resolveLevel(gitDir, tree, source.parent, "", 1, source, budget);
}

async function resolveLevel(gitDir: string, tree: string, parent: string, prefix: string, level: number, source: SubmoduleSource, budget: { left: number }): Promise<Submodule[]> {
  const entries = await listTree(gitDir, tree, false);
  const gitlinks = entries.filter((e) => e.mode === MODE_GITLINK);
  const declared = await declaredIn(gitDir, tree, prefix);
  checkDeclared(declared, entries, prefix);
  if (gitlinks.length === 0) return [];
  const found: Submodule[] = [];
  for (const link of gitlinks) {
    const path = `${prefix}${link.path}`;
    if (level > source.access.depth) {
      const allowed = source.access.depth === 0 ? "the operator allows no submodules" : `it is nested ${level} levels deep, more than the ${source.access.depth} the operator allows`;
      throw new SubmoduleError(`submodule ${shown(path)}: ${allowed} (RANEX_SUBMODULE_DEPTH)`);
    }
    const entry = declared.find((d) => d.path === link.path);
    if (entry === undefined) throw new SubmoduleError(`submodule ${shown(path)}: no entry in ${prefix}.gitmodules names it, so there is no URL to fetch commit ${link.object.slice(0, 12)} from`);
    const resolved = resolveSubmoduleUrl(entry.url ?? "", parent, source.access);
    const url = entry.url ?? "";
    if (!resolved.ok) throw new SubmoduleError(`submodule ${shown(path)} (${shown(url)}): ${resolved.why}`);
    // Credentials only for the superproject's own owner, at every level: a nested submodule's parent
    // is someone else's repository, and its owner is not the one the token was issued for.
    const config = sameOwner(resolved.location, source.parent) ? source.gitConfig : [];
    // The download is bounded as it arrives (./bounded-fetch.ts): by what the submodules may still
    // take (a pack of files is rarely larger than the files, so a small allowance for git's own
    // objects), and by the operator's time (RANEX_SUBMODULE_FETCH_SECONDS).
    const bound = { maxBytes: Math.max(budget.left, 0) + PACK_ALLOWANCE, timeoutMs: (source.access.fetchSeconds ?? DEFAULT_SUBMODULE_FETCH_SECONDS) * 1000 };
    const subDir = await fetchCommit(source.dataDir, resolved.location, link.object, resolved.kind, config, bound)
      .catch((err: Error) => {
        const knob = err instanceof FetchLimitError ? (err.message.includes("longer") ? " (RANEX_SUBMODULE_FETCH_SECONDS)" : " (sandbox.tree_mb)") : "";
        throw new SubmoduleError(`submodule ${shown(path)}: commit ${link.object.slice(0, 12)} could not be fetched from ${url}: ${err.message}${knob}`);
      });
    const subTree = (await gitOrThrow(subDir, ["rev-parse", "--verify", `${link.object}^{tree}`], `submodule ${path}`)).toString("utf8").trim();
    const bytes = (await listTree(subDir, subTree, true)).reduce((sum, e) => sum + (e.size ?? 0), 0);
    budget.left -= bytes;
    if (budget.left < 0) {
      throw new SubmoduleError(`submodule ${shown(path)}: its files take ${mb(bytes)} MB, more than the ${mb(source.maxBytes)} MB all submodules may take (sandbox.tree_mb)`);
    }
    const nested = await resolveLevel(subDir, subTree, resolved.location, `${path}/`, level + 1, source, budget);
    found.push({ path: link.path, url, commit: link.object, gitDir: subDir, tree: subTree, nested });
  }
  return found;
}

/** The entries of the tree's `.gitmodules`, read by git's own parser from the blob (never a file on disk). */
async function declaredIn(gitDir: string, tree: string, prefix: string): Promise<Declared[]> {
  const file = await entryAt(gitDir, tree, ".gitmodules");
  if (file === null) return [];
  // git itself refuses a .gitmodules that is a link (CVE-2018-11235): its text would come from elsewhere.
  if (file.mode !== "100644" && file.mode !== "100755") throw new SubmoduleError(`${prefix}.gitmodules is not a regular file (mode ${file.mode})`);
  if ((file.size ?? 0) > MAX_GITMODULES_BYTES) throw new SubmoduleError(`${prefix}.gitmodules is over ${MAX_GITMODULES_BYTES} bytes`);
  const result = await runGit(gitDir, ["config", "--no-includes", "-z", "--blob", file.object, "--list"]);
  if (result.code !== 0) throw new SubmoduleError(`${prefix}.gitmodules cannot be read: ${lastLine(result.stderr)}`);
  const byName = new Map<string, Declared>();
  for (const record of splitNul(result.stdout)) {
    const text = record.toString("utf8");
    const newline = text.indexOf("\n");
    const key = newline === -1 ? text : text.slice(0, newline);
    const value = newline === -1 ? "" : text.slice(newline + 1);
    if (!key.startsWith("submodule.")) continue;
    const dot = key.lastIndexOf(".");
    const name = key.slice("submodule.".length, dot);
    const variable = key.slice(dot + 1);
    if (name === "" || (variable !== "path" && variable !== "url")) continue;
    const entry = byName.get(name) ?? { name };
    entry[variable] = value;
    byName.set(name, entry);
  }
  return [...byName.values()];
}

/**
 * A declared path is only ever written as the gitlink's own folder, which this process creates; but
 * an entry whose name or path is a path trick, or that names a link of the tree, is someone aiming
 * the writing elsewhere, and the tree is refused rather than judged with the entry ignored.
 */
function checkDeclared(declared: readonly Declared[], entries: readonly TreeEntry[], prefix: string): void {
  const links = new Set(entries.filter((e) => e.mode === MODE_SYMLINK).map((e) => e.path));
  for (const entry of declared) {
    // git refuses these names too: a name becomes a folder under .git/modules in a checkout.
    if (entry.name.split(/[/\\]/).includes("..")) throw new SubmoduleError(`${prefix}.gitmodules: submodule name ${shown(entry.name)} has a '..' component`);
    if (entry.path === undefined) continue;
    const unsafe = unsafePathReason(Buffer.from(entry.path));
    if (unsafe !== null || entry.path.endsWith("/")) {
      throw new SubmoduleError(`${prefix}.gitmodules: submodule ${shown(entry.name)} has the unsafe path ${shown(entry.path)} (${unsafe ?? "a trailing '/'"})`);
    }
    const parts = entry.path.split("/");
    const link = parts.map((_, i) => parts.slice(0, i + 1).join("/")).find((p) => links.has(p));
    if (link !== undefined) throw new SubmoduleError(`${prefix}.gitmodules: submodule ${shown(entry.name)} has the path ${shown(entry.path)}, which goes through the symbolic link ${shown(link)} of the tree`);
  }
}

/** The mirror holding `commit` from `location`: fetched once (only that commit, shallow), then reused. */
async function fetchCommit(dataDir: string, location: string, commit: string, kind: "https" | "file", config: readonly string[], bound: FetchBound): Promise<string> {
  const dir = mirrorDirFor(location, dataDir, "submodules");
  return withMirrorLock(dir, async () => {
    await ensureMirror(dir);
    if ((await runGit(dir, ["cat-file", "-e", `${commit}^{commit}`])).code === 0) return dir;
    // Only the allowed transport, whatever the workspace's defaults allow; the command line ends
    // options with `--`, so no URL is ever read as one.
    const transport = ["protocol.allow=never", "protocol.http.allow=never", "protocol.ssh.allow=never", `protocol.file.allow=${kind === "file" ? "always" : "never"}`, `protocol.https.allow=${kind === "https" ? "always" : "never"}`];
    const args = ["fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", "--depth=1", "--", location, `${commit}:refs/ranex/commits/${commit}`];
    const result = await boundedFetch(dir, args, [...transport, ...config], bound).catch(async (err: Error) => {
      await runGit(dir, ["update-ref", "-d", `refs/ranex/commits/${commit}`]);
      throw err;
    });
    if (result.code !== 0) throw new WorkspaceError(lastLine(result.stderr));
    return dir;
  });
}

function shown(text: string): string {
  return JSON.stringify(text);
}

function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0);
}
