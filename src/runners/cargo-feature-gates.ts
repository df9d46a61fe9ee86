// Which cargo feature keeps a test out of a run (issue 22, found on rust-lang/log): a task's target
// `log::lib::kv::key::tests::key_borrowed_and_static_eq` lies in src/kv/key.rs, and src/lib.rs says
// `#[cfg(feature = "kv")] pub mod kv;`. A command without `kv` never compiles it, so the base run
// has no such test and the target is absent; `task check` and the judge say which feature, and where.
// The id's module path is followed from its target's root file through `mod` declarations (inline
// or in files, `#[path]` honoured), and every cfg met on the way is read with the command's features.
import { posix } from "node:path";
import { moduleFile, packageName } from "./cargo-report.js";
import { cfgAttributes, enabledBy, holds, named, requiredFeatures, wanted, type Cfg, type Enabled } from "./cargo-features.js";
import type { BaseFiles } from "./types.js";

/** Why a test id is not in a run of `command`: where the gate is, and the features it needs on (or off). */
export interface Hidden {
  /** The file holding the gate (a manifest for `required-features`). */
  file: string;
  /** The features the command must add. */
  missing: string[];
  /** Features the command turns on that the gate needs off (`not(feature = "std")`). */
  unwanted: string[];
}

/** The manifest folder of the crate an id names: the root package, or any package of the tree by that name. */
async function packageDir(crate: string, base: BaseFiles): Promise<{ dir: string; manifest: string } | null> {
  const manifests = [...base.files].filter((f) => f === "Cargo.toml" || f.endsWith("/Cargo.toml")).sort((a, b) => a.length - b.length).slice(0, 200);
  for (const path of manifests) {
    const manifest = await base.read(path);
    if (packageName(manifest) === crate && manifest !== null) return { dir: posix.dirname(path) === "." ? "" : posix.dirname(path), manifest };
  }
  return null;
}

function targetRoots(target: string, crate: string): string[] {
  if (target === "lib") return ["src/lib.rs"];
  if (target.startsWith("bin.")) {
    const name = target.slice(4);
    return [...(name === crate ? ["src/main.rs"] : []), `src/bin/${name}.rs`, `src/bin/${name}/main.rs`];
  }
  return [`tests/${target}.rs`, `tests/${target}/main.rs`];
}

/** Attributes written right above the item at `index` of `scope` (and before it on its own line). */
export function attributesBefore(scope: string, index: number): string {
  let end = scope.lastIndexOf("\n", index - 1);
  const collected = [scope.slice(end + 1, index)];
  let inAttribute = false;
  // Line by line upwards from the item, never splitting the whole text: a file of many tests stays linear.
  while (end > 0) {
    const start = scope.lastIndexOf("\n", end - 1);
    const line = scope.slice(start + 1, end).trim();
    end = start;
    if (inAttribute) {
      collected.unshift(line);
      if (line.startsWith("#[")) inAttribute = false;
    } else if (line === "" || line.startsWith("//")) continue;
    else if (line.startsWith("#[")) collected.unshift(line);
    else if (line.endsWith("]")) {
      collected.unshift(line);
      inAttribute = true;
    } else break;
  }
  return collected.join("\n");
}

/** The body of the `{` at `open`, skipping strings, char literals and comments. */
function block(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "/" && text[i + 1] === "/") i = text.indexOf("\n", i) < 0 ? text.length : text.indexOf("\n", i);
    else if (c === "/" && text[i + 1] === "*") i = text.indexOf("*/", i + 2) < 0 ? text.length : text.indexOf("*/", i + 2) + 1;
    else if (c === "\"") for (i++; i < text.length && text[i] !== "\""; i++) { if (text[i] === "\\") i++; }
    else if (c === "'" && /^'(?:\\.|[^\\'])'/.test(text.slice(i, i + 4))) i = text.indexOf("'", i + 2);
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

const escaped = (name: string): string => name.replace(/[^\w]/g, "\\$&");

/** The cfg attributes met on the way from a target's root file to a test, each with the file it is in. */
async function gatesOnPath(root: string, path: readonly string[], read: (p: string) => Promise<string | null>, exists: (p: string) => boolean): Promise<{ file: string; attrs: string }[] | null> {
  let file = root;
  let scope = await read(root);
  if (scope === null) return null;
  const gates: { file: string; attrs: string }[] = [];
  const modRs = (f: string): boolean => f === root || /(^|\/)(mod|lib|main)\.rs$/.test(f);
  let dir = modRs(file) ? posix.dirname(file) : file.replace(/\.rs$/, "");
  let inline = false;
  for (const [k, segment] of path.entries()) {
    const last = k === path.length - 1;
    const item = last
      ? new RegExp(`\\bfn\\s+${escaped(segment)}\\s*[<(]`).exec(scope)
      : new RegExp(`(?:^|[\\s;{}\\]])(?:pub(?:\\s*\\([^)]*\\))?\\s+)?mod\\s+${escaped(segment)}\\s*([;{])`).exec(scope);
    if (item === null) return gates;
    const attrs = attributesBefore(scope, item.index + (item[0].search(/\S/) > 0 && !last ? item[0].search(/\S/) : 0));
    gates.push({ file, attrs });
    if (last) break;
    if (item[1] === "{") {
      scope = block(scope, item.index + item[0].length - 1);
      dir = `${dir}/${segment}`;
      inline = true;
      continue;
    }
    const pathAttr = /#\[\s*path\s*=\s*"([^"\n]+)"\s*\]/.exec(attrs)?.[1];
    const candidates = pathAttr !== undefined ? [posix.normalize(`${inline ? dir : posix.dirname(file)}/${pathAttr}`)] : [`${dir}/${segment}.rs`, `${dir}/${segment}/mod.rs`];
    const next = candidates.map((c) => c.replace(/^\.\//, "")).find(exists);
    if (next === undefined) return gates;
    file = next;
    scope = await read(next);
    if (scope === null) return gates;
    // A module file's own `#![cfg(…)]` gates all of it.
    gates.push({ file, attrs: [...scope.matchAll(/#!\[\s*cfg\s*\([^\n]*/g)].map((m) => m[0]).join("\n") });
    dir = pathAttr === undefined && !modRs(file) ? file.replace(/\.rs$/, "") : posix.dirname(file);
    inline = false;
  }
  return gates;
}

/** The first gate that does not hold with `enabled`, as features to add or take away. */
function blocking(cfg: Cfg, enabled: Enabled): { missing: string[]; unwanted: string[] } | null {
  if (holds(cfg, enabled) !== false) return null;
  const isOn = (f: string): boolean => enabled === "all" || enabled.has(f);
  const positive = new Set(wanted(cfg));
  return {
    missing: [...positive].filter((f) => !isOn(f)),
    unwanted: named(cfg).filter((f) => !positive.has(f) && isOn(f)),
  };
}

/**
 * Why `command` does not compile the test `id` (`<crate>::<target>::<path>`) of the tree in `base`:
 * a cfg on its path that does not hold with the command's features, or its target's
 * `required-features`. Null when nothing on its path is a feature the command leaves off (or on).
 */
export async function hiddenByFeatures(id: string, command: string, base: BaseFiles): Promise<Hidden | null> {
  const [crate, target, ...path] = id.split("::");
  if (crate === undefined || target === undefined || target === "doc" || path.length === 0) return null;
  const found = await packageDir(crate, base);
  if (found === null) return null;
  const at = (p: string): string => (found.dir === "" ? p : `${found.dir}/${p}`);
  const enabled = enabledBy(command, found.manifest);
  const isOn = (f: string): boolean => enabled === "all" || enabled.has(f);
  const kind = target === "lib" ? "lib" : target.startsWith("bin.") ? "bin" : "test";
  const required = requiredFeatures(found.manifest).find((r) => r.kind === kind && r.name === (kind === "bin" ? target.slice(4) : target));
  const lacking = (required?.features ?? []).filter((f) => !isOn(f.replace(/^[^/]+\//, "")));
  if (lacking.length > 0) return { file: at("Cargo.toml"), missing: lacking, unwanted: [] };
  const root = targetRoots(target, crate).map(at).find((p) => base.files.has(p));
  if (root === undefined) return null;
  const gates = await gatesOnPath(root, path, base.read, (p) => base.files.has(p));
  for (const gate of gates ?? []) {
    for (const attr of cfgAttributes(gate.attrs).filter((a) => a.kind === "cfg")) {
      const blocked = blocking(attr.cfg, enabled);
      if (blocked !== null && blocked.missing.length + blocked.unwanted.length > 0) return { file: gate.file, ...blocked };
    }
  }
  return null;
}

/**
 * The base's file that declares the test `id` (Runner.fileOfId): the module file its path leads to
 * from its target's root, when that file has an `fn` of the test's name; null otherwise. Its crate
 * name is no file (`task check` took `log` for one).
 */
export async function cargoFileOfId(id: string, base: BaseFiles): Promise<string | null> {
  const [crate, target, ...path] = id.split("::");
  if (crate === undefined || target === undefined || target === "doc" || path.length === 0) return null;
  const found = await packageDir(crate, base);
  if (found === null) return null;
  const at = (p: string): string => (found.dir === "" ? p : `${found.dir}/${p}`);
  const root = targetRoots(target, crate).map(at).find((p) => base.files.has(p));
  const file = root === undefined ? null : moduleFile(root, path, (p) => base.files.has(p));
  if (file === null) return null;
  return new RegExp(`\\bfn\\s+${escaped(path[path.length - 1] ?? "")}\\s*[<(]`).test(await base.read(file) ?? "") ? file : null;
}

/** One line for a person: where the gate is and what the command must enable. */
export function hiddenLine(hidden: Hidden): string {
  const parts = [
    ...(hidden.missing.length > 0 ? [`behind the cargo feature${hidden.missing.length > 1 ? "s" : ""} ${hidden.missing.join(", ")} (${hidden.file}), which tests.command does not enable: add --features ${hidden.missing.join(",")} to tests.command and tests.setup (or run ranex init again)`] : []),
    ...(hidden.unwanted.length > 0 ? [`compiled only without the cargo feature${hidden.unwanted.length > 1 ? "s" : ""} ${hidden.unwanted.join(", ")} (${hidden.file}), which tests.command turns on`] : []),
  ];
  return parts.join("; ");
}

/** Runner.hiddenBy of cargo and nextest: the line, or null. */
export async function hiddenByCommand(id: string, base: BaseFiles, command: string): Promise<string | null> {
  const hidden = await hiddenByFeatures(id, command, base);
  return hidden === null ? null : hiddenLine(hidden);
}
