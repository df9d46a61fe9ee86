// A Cargo workspace's member folders at any depth (issue 22): the globs of `[workspace] members`
// (less `exclude`), and the path dependencies of the root and of every member inside the tree, which
// cargo makes members too. Read from the manifests' text, not by running cargo: the tree is the
// change's, and cargo on the host would read its `.cargo/config.toml` (a `rustc` of the tree's choosing).
// Only real folders: no step of a member's path may be a symlink, which could lead out of the tree.
import { lstatSync, readdirSync } from "node:fs";
import { join, posix } from "node:path";
import { readTreeFile } from "./tree-read.js";

/** No more folders than this are taken from one workspace, nor `**` followed deeper. */
const MAX_MEMBERS = 500;
const MAX_DEPTH = 8;

/** A TOML table's body (up to the next table header), or "" when the text has none. */
function table(text: string, header: RegExp): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\[([^\]\n]+)\][^\S\n]*(?:#.*)?$([\s\S]*?)(?=^\[|(?![\s\S]))/gm)) {
    if (header.test((m[1] ?? "").trim())) out.push(m[2] ?? "");
  }
  return out;
}

/** The quoted strings of `key = [ … ]` (over several lines, comments dropped) in a table's body. */
function stringArray(body: string, key: string): string[] {
  const noComments = body.split("\n").map((l) => l.replace(/^\s*#.*$/, "").replace(/,\s*#.*$/, ",")).join("\n");
  const list = new RegExp(`^\\s*${key}\\s*=\\s*\\[([\\s\\S]*?)\\]`, "m").exec(noComments)?.[1] ?? "";
  return [...list.matchAll(/"([^"\n]*)"|'([^'\n]*)'/g)].map((m) => m[1] ?? m[2] ?? "");
}

function isRealFolder(treeDir: string, rel: string): boolean {
  let at = "";
  for (const part of rel.split("/")) {
    at = at === "" ? part : `${at}/${part}`;
    try {
      if (!lstatSync(join(treeDir, at)).isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** A folder of the tree, normalised, or null when it leaves the tree. */
function inTree(rel: string): string | null {
  const norm = posix.normalize(rel).replace(/\/+$/, "");
  return norm === "." || norm === "" || norm.startsWith("../") || norm === ".." || posix.isAbsolute(norm) ? null : norm;
}

const globPart = (part: string): RegExp => new RegExp(`^${part.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]")}$`);

/** The folders a member glob names (`crates/*`, `libs/**`, a plain path). */
function expand(treeDir: string, pattern: string): string[] {
  const clean = inTree(pattern);
  if (clean === null) return [];
  let found = [""];
  for (const part of clean.split("/")) {
    const next: string[] = [];
    for (const dir of found) {
      if (part === "**") {
        const walk = (rel: string, depth: number): void => {
          next.push(rel);
          if (depth < MAX_DEPTH && next.length < MAX_MEMBERS) for (const child of subfolders(treeDir, rel)) walk(rel === "" ? child : `${rel}/${child}`, depth + 1);
        };
        walk(dir, 0);
      } else if (/[*?[]/.test(part)) {
        const re = globPart(part);
        for (const child of subfolders(treeDir, dir)) if (re.test(child)) next.push(dir === "" ? child : `${dir}/${child}`);
      } else {
        next.push(dir === "" ? part : `${dir}/${part}`);
      }
    }
    found = next.slice(0, MAX_MEMBERS);
  }
  return found.filter((d) => d !== "");
}

function subfolders(treeDir: string, rel: string): string[] {
  try {
    return readdirSync(join(treeDir, rel), { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== "target").map((e) => e.name).sort();
  } catch {
    return [];
  }
}

/** The folders of a manifest's path dependencies, relative to the tree. */
function pathDependencies(manifest: string, dir: string): string[] {
  const out: string[] = [];
  for (const body of table(manifest, /(?:^|\.)(?:dev-|build-)?dependencies(?:\.[^.]+)?$/)) {
    for (const m of body.matchAll(/\bpath\s*=\s*"([^"\n]+)"/g)) {
      const rel = inTree(dir === "" ? m[1] ?? "" : `${dir}/${m[1] ?? ""}`);
      if (rel !== null) out.push(rel);
    }
  }
  return out;
}

/** The folders of the workspace rooted at the tree's Cargo.toml that hold a member's Cargo.toml (the root's own package excluded). */
export function workspaceMembers(treeDir: string): string[] {
  const root = readTreeFile(treeDir, "Cargo.toml");
  if (root === null) return [];
  const ws = table(root, /^workspace$/)[0];
  // Without a workspace, cargo tests the root package alone: its path dependencies are no members.
  if (ws === undefined) return [];
  const excluded = stringArray(ws, "exclude").map(inTree).filter((d): d is string => d !== null);
  const isExcluded = (d: string): boolean => excluded.some((e) => d === e || d.startsWith(`${e}/`));
  const found = new Set<string>();
  const queue = [...stringArray(ws, "members").flatMap((p) => expand(treeDir, p)), ...pathDependencies(root, "")];
  while (queue.length > 0 && found.size < MAX_MEMBERS) {
    const dir = queue.shift() ?? "";
    if (found.has(dir) || isExcluded(dir) || !isRealFolder(treeDir, dir)) continue;
    const manifest = readTreeFile(treeDir, `${dir}/Cargo.toml`);
    if (manifest === null) continue;
    found.add(dir);
    queue.push(...pathDependencies(manifest, dir));
  }
  return [...found];
}
