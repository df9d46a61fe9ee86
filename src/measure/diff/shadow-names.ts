// Shadowing by name (issue 19, class 1). An interpreter looks a module up by name along its module
// path, and the tree comes first on it: Python puts the working folder and every PYTHONPATH entry
// before the standard library and site-packages; Node searches NODE_PATH for a bare name that no
// node_modules holds. So a new top-level module at one of those roots, named like a module of the
// standard library or of an installed distribution, replaces that module for every importer: the
// runner, its plugins, the frozen tests' oracle (`src/statistics.py` under `PYTHONPATH=src`). The
// repository's own top-level names (those on the base at that root) are not new and never flagged.
import { posix } from "node:path";
import type { DiffFact } from "../../workspace/types.js";
import { isNewOnHead, type DiffContext, type ModuleNames } from "./context.js";
import { PYTHON_STDLIB } from "./python-stdlib.js";

/** One place the run's module path starts from, and which language's. */
export interface ModuleRoot {
  language: "python" | "node";
  /** A folder of the repository ("" for its root). */
  dir: string;
  /** Why it is on the module path, for the finding: "the working folder", "PYTHONPATH". */
  why: string;
}

/** Entries of `NAME=value` assignments in a shell command (quoted or not); `$VAR` parts are dropped. */
export function pathVariable(command: string | undefined, name: string): string[] {
  const found: string[] = [];
  const assignment = new RegExp(`(?:^|[\\s;&|(])(?:export\\s+)?${name}=(?:"([^"]*)"|'([^']*)'|([^\\s;&|)]*))`, "g");
  for (const match of (command ?? "").matchAll(assignment)) {
    // `${PYTHONPATH:+:$PYTHONPATH}` and other expansions add nothing of the tree's; an empty entry
    // is the working folder, which is a root already.
    const value = (match[1] ?? match[2] ?? match[3] ?? "").replace(/\$\{[^}]*\}|\$\w+/g, "");
    for (const entry of value.split(":")) {
      const clean = entry.trim();
      if (clean === "" || clean.startsWith("/")) continue;
      const normal = posix.normalize(clean).replace(/\/+$/, "");
      if (normal === ".." || normal.startsWith("../")) continue;
      found.push(normal === "." ? "" : normal);
    }
  }
  return [...new Set(found)];
}

/**
 * The roots of the run's module path inside the tree: for Python the working folder (the
 * repository root), each relative PYTHONPATH entry tests.command sets, each folder pytest's
 * `pythonpath` setting names, and the folder pytest puts first for each base test file (its nearest
 * ancestor without `__init__.py`); for Node each NODE_PATH entry.
 */
export function moduleRoots(ctx: Pick<DiffContext, "policy" | "basePaths" | "modules">): ModuleRoot[] {
  const command = ctx.policy.tests.command;
  const roots: ModuleRoot[] = [{ language: "python", dir: "", why: "the working folder" }];
  for (const dir of pathVariable(command, "PYTHONPATH")) roots.push({ language: "python", dir, why: "on PYTHONPATH" });
  for (const dir of ctx.modules?.pytestPythonPath ?? []) roots.push({ language: "python", dir, why: "on pytest's pythonpath" });
  const base = new Set(ctx.basePaths);
  for (const path of ctx.basePaths) {
    if (!path.endsWith(".py") || !/(?:^|\/)(?:test_[^/]*|[^/]*_test)\.py$/.test(path)) continue;
    let dir = posix.dirname(path);
    while (dir !== "." && base.has(`${dir}/__init__.py`)) dir = posix.dirname(dir);
    roots.push({ language: "python", dir: dir === "." ? "" : dir, why: "where pytest imports the tests from" });
  }
  for (const dir of pathVariable(command, "NODE_PATH")) roots.push({ language: "node", dir, why: "on NODE_PATH" });
  const unique = new Map<string, ModuleRoot>();
  for (const root of roots) if (!unique.has(`${root.language}:${root.dir}`)) unique.set(`${root.language}:${root.dir}`, root);
  return [...unique.values()];
}

const PY_SUFFIX = /^([A-Za-z_][A-Za-z0-9_]*)(?:\.[\w-]+)?\.(?:py|pyc|pyw|pyd|so)$/;
const PY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NODE_SUFFIX = /^(.+?)\.(?:[cm]?js|[cm]?ts|json|node)$/;

/**
 * The top-level module a path defines at a root, as the language would import it; null for none.
 * Only code counts: a folder named like a module shadows it through the modules inside it, while
 * `site/index.html` or `json/data.json` are loaded by no import.
 */
function topModule(rel: string, language: "python" | "node"): string | null {
  const parts = rel.split("/");
  const first = parts[0] ?? "";
  const last = parts[parts.length - 1] ?? "";
  if (language === "python") {
    if (PY_SUFFIX.exec(last) === null) return null;
    if (parts.length > 1) return PY_NAME.test(first) ? first : null;
    return first.startsWith("__init__.") ? null : PY_SUFFIX.exec(first)?.[1] ?? null;
  }
  if (NODE_SUFFIX.exec(last) === null && last !== "package.json") return null;
  if (parts.length > 1) return first.startsWith("@") && parts.length > 2 ? `${first}/${parts[1]}` : first;
  return NODE_SUFFIX.exec(first)?.[1] ?? null;
}

/** The names a module of the tree may not take, each with what it would shadow. */
function owners(names: ModuleNames | undefined): { python: Map<string, string>; node: Map<string, string> } {
  const python = new Map<string, string>();
  for (const n of names?.pythonInstalled ?? []) python.set(n, `the installed distributions' ${n}`);
  for (const n of [...PYTHON_STDLIB, ...names?.pythonStdlib ?? []]) python.set(n, `the standard library's ${n}`);
  const node = new Map<string, string>();
  for (const n of names?.nodePackages ?? []) node.set(n, `the installed package ${n}`);
  for (const n of names?.nodeBuiltins ?? []) {
    const bare = n.replace(/^node:/, "").split("/")[0] ?? n;
    node.set(bare, `Node's built-in ${bare}`);
  }
  return { python, node };
}

export interface Shadowing {
  path: string;
  message: string;
}

/** Every new top-level module of the change that takes the name of one outside the tree. */
export function shadowedModules(ctx: DiffContext): Shadowing[] {
  const roots = moduleRoots(ctx);
  const taken = owners(ctx.modules);
  const found: Shadowing[] = [];
  for (const fact of ctx.facts) {
    const hit = shadowOf(fact, roots, taken, ctx.basePaths);
    if (hit !== null) found.push({ path: fact.path, message: hit });
  }
  return found;
}

function shadowOf(fact: DiffFact, roots: readonly ModuleRoot[], taken: ReturnType<typeof owners>, basePaths: readonly string[]): string | null {
  if (!isNewOnHead(fact) || fact.submodule) return null;
  for (const root of roots) {
    const prefix = root.dir === "" ? "" : `${root.dir}/`;
    if (!fact.path.startsWith(prefix)) continue;
    const rel = fact.path.slice(prefix.length);
    const name = topModule(rel, root.language);
    if (name === null) continue;
    const owner = (root.language === "python" ? taken.python : taken.node).get(name);
    if (owner === undefined) continue;
    // The repository's own: that top-level name was there on the base already.
    const first = rel.split("/")[0] ?? "";
    const stem = `${prefix}${first.includes(".") ? name : first}`;
    if (basePaths.some((p) => p === stem || p.startsWith(`${stem}/`) || p.startsWith(`${stem}.`))) continue;
    const at = root.dir === "" ? "the repository root" : root.dir;
    return `new top-level ${root.language === "python" ? "Python" : "Node"} module ${name} at ${at} (${root.why}) would shadow ${owner}`;
  }
  return null;
}
