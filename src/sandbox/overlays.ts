// Host files or directories shown over the run's tree (the dependencies a once-only setup installed,
// src/measure/deps). Each goes where the setup created it, read-only: a run can use the installed
// packages but never change what the next run, or the next PR with the same lock files, will see.
import { cpSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { RunRequest } from "./types.js";

/**
 * The mounts for bwrap: after the tree, so they lie over it. Links were recreated instead. A cached
 * folder becomes a fresh tmpfs of this run holding each cached entry read-only: tools add their own
 * entries beside the packages at test time (vite bundles its config into node_modules/.vite-temp,
 * babel and others cache in node_modules/.cache), and those vanish with the run, while every
 * installed entry stays as the setup left it. The folder itself is a mount point, so it cannot be
 * renamed or removed either.
 */
export function overlayMounts(request: RunRequest, workdir: string, folderBytes: number): string[] {
  const args: string[] = [];
  for (const overlay of request.treeOverlays ?? []) {
    const host = lstatSync(overlay.host, { throwIfNoEntry: false });
    if (host === undefined || host.isSymbolicLink()) continue;
    const dest = `${workdir}/${overlay.path}`;
    if (!host.isDirectory()) {
      args.push("--ro-bind", overlay.host, dest);
      continue;
    }
    args.push("--size", String(folderBytes), "--tmpfs", dest);
    for (const name of readdirSync(overlay.host).sort()) {
      const entry = join(overlay.host, name);
      if (lstatSync(entry).isSymbolicLink()) args.push("--symlink", readlinkSync(entry), `${dest}/${name}`);
      else args.push("--ro-bind", entry, `${dest}/${name}`);
    }
  }
  return args;
}

/**
 * Makes each overlay's place in the tree: its parents real directories of the tree, and at the path
 * itself an empty directory or file for bwrap to mount over (whatever the tree had there is removed:
 * the dependencies come from the cache, not from the change). A link the setup created is recreated
 * as the same link, since bwrap would follow it on the host. With `linkOnly` (backend `none`, no
 * mounts) the path becomes a link to the cached entry. Returns why the tree cannot take them, or null.
 */
export function placeOverlays(request: RunRequest, linkOnly: boolean): string | null {
  try {
    return place(request, linkOnly);
  } catch (err) {
    return `refused: the cached dependencies could not be placed in the tree: ${(err as Error).message}`;
  }
}

function place(request: RunRequest, linkOnly: boolean): string | null {
  // Without mounts, the warm layers (RunRequest.treeLowers) cannot lie beneath the tree: what the tree
  // lacks of them is copied in, the topmost layer first (nothing is overwritten, folders are merged, as
  // the overlay would show them), so the run can still write over them and the cache stays as it was.
  if (linkOnly) {
    for (const lower of request.treeLowers ?? []) {
      for (const name of readdirSync(lower)) {
        cpSync(join(lower, name), join(request.workdir, name), { recursive: true, verbatimSymlinks: true, force: false, errorOnExist: false });
      }
    }
  }
  const overlays = request.treeOverlays ?? [];
  if (overlays.length === 0) return null;
  const root = realpathSync(request.workdir);
  for (const overlay of overlays) {
    const why = `refused: the cached dependency ${JSON.stringify(overlay.path)}`;
    if (overlay.path === "" || overlay.path.startsWith("/") || overlay.path.split("/").some((p) => p === "" || p === "." || p === "..")) {
      return `${why} is not a plain relative path`;
    }
    const host = isAbsolute(overlay.host) ? lstatSync(overlay.host, { throwIfNoEntry: false }) : undefined;
    if (host === undefined) return `${why} is missing from the dependency cache (${overlay.host})`;
    const parts = overlay.path.split("/");
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      dir = join(dir, part);
      const info = lstatSync(dir, { throwIfNoEntry: false });
      if (info === undefined) mkdirSync(dir);
      else if (!info.isDirectory()) return `${why} would go under ${JSON.stringify(parts.slice(0, parts.indexOf(part) + 1).join("/"))}, which this tree has as a link or a file`;
    }
    const leaf = join(root, overlay.path);
    rmSync(leaf, { recursive: true, force: true });
    if (host.isSymbolicLink()) symlinkSync(readlinkSync(overlay.host), leaf);
    else if (linkOnly) symlinkSync(overlay.host, leaf);
    else if (host.isDirectory()) mkdirSync(leaf);
    else writeFileSync(leaf, "");
  }
  return null;
}
