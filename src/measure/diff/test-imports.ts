// What a frozen test file imports, read from its own text (issue 19, the frozen tests' helpers). The
// base run's record says which tree file imported which module, but only for what it saw: Python's
// `import` event fires once per process (a helper the package's `__init__.py` loads first is named as
// that file's import), and Node's preload sees CommonJS resolution only (an ES module's `import` is
// never seen). The frozen files' import statements are the owner's, fixed on the base: read here,
// they say what every frozen test relies on whoever loaded it first. Python's absolute names are
// resolved with the record's module table (the name each tree module was loaded as), relative ones
// and scripts' relative specifiers against the base's files. Pure.

import { posix } from "node:path";

/** What one frozen file imports: absolute Python module names to resolve, and repository paths resolved already. */
export interface FileImports {
  names: string[];
  paths: string[];
}

const PYTHON = /\.pyi?$/;
const SCRIPT = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** Is the file one whose imports this module reads? */
export function readsImports(path: string): boolean {
  return PYTHON.test(path) || SCRIPT.test(path);
}

/** The imports of a frozen file, its relative ones resolved against `paths` (the base's files). */
export function importsOf(path: string, text: string, paths: ReadonlySet<string>): FileImports {
  if (PYTHON.test(path)) return pythonImports(path, text, paths);
  if (SCRIPT.test(path)) return { names: [], paths: scriptSpecifiers(text).flatMap((s) => resolveScript(path, s, paths)) };
  return { names: [], paths: [] };
}

// ------------------------------------------------------------------------------------------ Python

const DOTTED = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/;
// `importlib.import_module("a.b")`, `__import__("a.b")`, `pytest.importorskip("a.b")`: a literal name.
const DYNAMIC = /\b(?:import_module|__import__|importorskip)\s*\(\s*(["'])([\w.]+)\1/g;
// `pytest_plugins = ["a.b", "c"]` in a conftest or test module: modules pytest loads for it.
const PLUGINS = /^\s*pytest_plugins\s*=\s*([[(]?[^\n\])]*[\])]?|["'][^"'\n]*["'])/m;

/** Python's import statements as logical lines: continuations joined, comments cut, `;` split. */
function pythonStatements(text: string): string[] {
  const joined = text.replace(/\\\r?\n/g, " ");
  const statements: string[] = [];
  const lines = joined.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    let line = lines[i]!.replace(/#.*$/, "");
    // `from x import (a,\n b)`: the parenthesised names run on until the bracket closes.
    if (/^\s*from\s+\S+\s+import\s*\(/.test(line)) {
      while (!line.includes(")") && i + 1 < lines.length) line += ` ${lines[++i]!.replace(/#.*$/, "")}`;
    }
    statements.push(...line.split(";").map((s) => s.trim()).filter((s) => /^(?:import|from)\s/.test(s)));
  }
  return statements;
}

function pythonImports(path: string, text: string, paths: ReadonlySet<string>): FileImports {
  const names = new Set<string>();
  const found = new Set<string>();
  const withParents = (name: string): void => {
    const parts = name.split(".");
    for (let i = 1; i <= parts.length; i += 1) names.add(parts.slice(0, i).join("."));
  };
  // `import numpy as np` then `np.testing.assert_allclose`: a submodule the package loads itself is
  // reached as an attribute, with no import statement of its own. alias -> the module it names.
  const aliases = new Map<string, string>();
  for (const statement of pythonStatements(text)) {
    const plain = /^import\s+(.+)$/.exec(statement);
    if (plain !== null) {
      for (const item of plain[1]!.split(",")) {
        const [name, alias] = item.trim().split(/\s+as\s+/).map((part) => part.trim()) as [string, string | undefined];
        if (!DOTTED.test(name)) continue;
        withParents(name);
        if (alias !== undefined && /^[A-Za-z_]\w*$/.test(alias)) aliases.set(alias, name);
        else aliases.set(name.split(".")[0]!, name.split(".")[0]!);
      }
      continue;
    }
    const from = /^from\s+(\.*)([\w.]*)\s+import\s+\(?([^)]*)\)?/.exec(statement);
    if (from === null) continue;
    const [, dots, module, list] = from as unknown as [string, string, string, string];
    const imported = list.split(",").map((n) => n.trim().split(/\s+as\s+/)[0]!.trim()).filter((n) => /^[A-Za-z_]\w*$/.test(n));
    if (dots === "") {
      if (!DOTTED.test(module) || module === "__future__") continue;
      withParents(module);
      // `from a import b`: b may be a submodule; resolved only if a module of that name was loaded.
      for (const name of imported) names.add(`${module}.${name}`);
      continue;
    }
    for (const p of relativePython(path, dots.length, module, imported, paths)) found.add(p);
  }
  for (const [alias, module] of aliases) {
    for (const match of text.matchAll(new RegExp(`(?<![\\w.])${alias}((?:\\.[A-Za-z_]\\w*)+)`, "g"))) withParents(module + match[1]!);
  }
  for (const match of text.matchAll(DYNAMIC)) if (DOTTED.test(match[2]!)) withParents(match[2]!);
  const plugins = PLUGINS.exec(text);
  if (plugins !== null) for (const match of plugins[1]!.matchAll(/["']([\w.]+)["']/g)) withParents(match[1]!);
  return { names: [...names].sort(), paths: [...found].sort() };
}

/** `from ..m import x` in `a/b/tests/t.py`: `a/b/m.py` or `a/b/m/__init__.py`, and `a/b/m/x.py` if x is a module. */
function relativePython(path: string, level: number, module: string, imported: readonly string[], paths: ReadonlySet<string>): string[] {
  let dir = posix.dirname(path);
  for (let up = 1; up < level; up += 1) {
    if (dir === "." || dir === "") return [];
    dir = posix.dirname(dir);
  }
  const under = (p: string): string => (dir === "." ? p : `${dir}/${p}`);
  const stem = module === "" ? [] : module.split(".");
  const candidates: string[] = [];
  // The packages on the way run their __init__.py too.
  for (let i = 0; i <= stem.length; i += 1) {
    const at = stem.slice(0, i).join("/");
    candidates.push(under(at === "" ? "__init__.py" : `${at}/__init__.py`));
    if (i > 0) candidates.push(under(`${at}.py`));
  }
  const base = stem.join("/");
  for (const name of imported) {
    const at = base === "" ? name : `${base}/${name}`;
    candidates.push(under(`${at}.py`), under(`${at}/__init__.py`));
  }
  return candidates.filter((c) => paths.has(c));
}

// ------------------------------------------------------------------------------- JavaScript, TS

// `import x from "s"`, `export * from "s"`, `import "s"`, `import("s")`, `require("s")`, and the test
// runners' own (`jest.requireActual`, `vi.importActual`): the specifier as written.
const SPECIFIERS: readonly RegExp[] = [
  /\bfrom\s*(["'])([^"'\n]+)\1/g,
  /\bimport\s*(["'])([^"'\n]+)\1/g,
  /\b(?:import|require|requireActual|importActual)\s*\(\s*(["'`])([^"'`\n]+)\1\s*[,)]/g,
];

export function scriptSpecifiers(text: string): string[] {
  const found = new Set<string>();
  for (const pattern of SPECIFIERS) for (const match of text.matchAll(pattern)) found.add(match[2]!);
  return [...found];
}

const SCRIPT_EXTENSIONS = [".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts", ".json"];
// What TypeScript-aware runners (vitest, ts-jest, tsx) load for a `.js` specifier.
const TS_FOR: Readonly<Record<string, readonly string[]>> = { ".js": [".ts", ".tsx"], ".jsx": [".tsx"], ".mjs": [".mts"], ".cjs": [".cts"] };

/**
 * A relative specifier as Node and the runners resolve it: ES modules take the file as written;
 * CommonJS, jest and vitest also try extensions and `index` files, and TypeScript's `.ts` for a
 * `.js`. The first file the base has is the one; a bare specifier (a package, `#imports`) is not
 * resolved here (CommonJS ones are in the record).
 */
export function resolveScript(from: string, specifier: string, paths: ReadonlySet<string>): string[] {
  if (!/^\.\.?(?:\/|$)/.test(specifier)) return [];
  const target = posix.normalize(posix.join(posix.dirname(from), specifier.replace(/[?#].*$/, "")));
  if (target === ".." || target.startsWith("../")) return [];
  const ext = posix.extname(target);
  const stem = target.slice(0, target.length - ext.length);
  const candidates = [
    target,
    ...(TS_FOR[ext] ?? []).map((e) => stem + e),
    ...SCRIPT_EXTENSIONS.map((e) => target + e),
    ...SCRIPT_EXTENSIONS.map((e) => `${target}/index${e}`),
  ];
  const hit = candidates.find((c) => c !== "." && paths.has(c));
  return hit === undefined ? [] : [hit];
}
