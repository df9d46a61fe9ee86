import { hasUnsafeChar } from "./context.js";

/**
 * What is wrong with a path as a name, or null. Git accepts almost any bytes in a path; these shapes
 * exist to trick a tool, a terminal or another filesystem, never to name honest source.
 */
export function pathTricks(path: string): string[] {
  const found: string[] = [];
  if (hasUnsafeChar(path)) found.push("a control or invisible character");
  // Git hands us bytes decoded as UTF-8; a replacement character means they were not UTF-8.
  if (path.includes("\uFFFD")) found.push("bytes that are not valid UTF-8");
  if (path.includes("\\")) found.push("a backslash");
  const parts = path.split("/");
  if (parts.some((p) => p === "")) found.push("an empty component");
  if (parts.some((p) => p === "." || p === "..")) found.push("a '.' or '..' component");
  if (parts.some((p) => p.startsWith("-"))) found.push("a component starting with '-'");
  // `.git` in any case, and the spellings Windows and macOS fold onto it (`.git.`, `.git `, `git~1`).
  if (parts.some((p) => /^\.git[. ]*$/i.test(p) || /^git~\d+$/i.test(p))) found.push("a .git component");
  return found;
}

// Python modules the test run imports. The working folder, and with pytest's default import mode
// each test's root folder, come first on sys.path, so a module of the same name anywhere a test can
// sit replaces the real one.
const PYTHON_TOOL_MODULES = ["pytest", "_pytest", "py", "unittest", "pluggy"];
// Runners known by name in tests.command. For Node, a module of that name at the top can be what
// `node <runner>` or a bare import resolves to before node_modules.
const NODE_RUNNERS = ["vitest", "jest", "mocha", "ava", "tap", "jasmine", "karma", "c8", "nyc", "tsx", "ts-node", "uvu", "playwright"];
const PYTHON_RUNNERS = ["pytest", "py.test", "nose2", "tox", "nox", "ward"];

/** The runner names tests.command invokes: known runners by word, and Python `-m <module>`. */
export function runnersIn(command: string | undefined): { node: string[]; python: string[] } {
  const words = (command ?? "").split(/[\s;&|()<>`'"]+/).filter(Boolean);
  const node = new Set<string>();
  const python = new Set<string>();
  words.forEach((word, i) => {
    const base = (word.split("/").pop() ?? "").replace(/\.(?:[cm]?js|[cm]?ts|py)$/, "");
    if (NODE_RUNNERS.includes(base)) node.add(base);
    if (PYTHON_RUNNERS.includes(base)) python.add(base === "py.test" ? "pytest" : base);
    const next = words[i + 1];
    if (word === "-m" && next !== undefined && /^[A-Za-z_][\w.]*$/.test(next)) python.add(next.split(".")[0] ?? next);
  });
  return { node: [...node].sort(), python: [...python].sort() };
}

const escapeRe = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * For a path new on head: the test tool it would shadow, or null. Python: a module file
 * (`pytest.py`, `.pyc`, an extension `.so`) or a package (`unittest/__init__.py`) at any depth, and
 * anything under a top-level `pytest/` or `_pytest/`. Node: anything under `node_modules/`, and a
 * top-level module, file or folder named like a runner from tests.command (`vitest.js`).
 */
export function shadowedTool(path: string, command: string | undefined): string | null {
  const runners = runnersIn(command);
  const pythonNames = [...new Set([...PYTHON_TOOL_MODULES, ...runners.python])].map(escapeRe).join("|");
  const parts = path.split("/");
  const top = parts[0] ?? "";
  const name = parts[parts.length - 1] ?? "";
  const moduleFile = new RegExp(`^(${pythonNames})(?:\\.pyc?|\\.pyw|\\.pyd|(?:\\.[\\w-]+)?\\.so)$`).exec(name);
  if (moduleFile !== null) return `the Python module ${moduleFile[1]}`;
  const packageDir = parts.length >= 2 && /^__init__\.pyc?$/.test(name) ? new RegExp(`^(${pythonNames})$`).exec(parts[parts.length - 2] ?? "") : null;
  if (packageDir !== null) return `the Python package ${packageDir[1]}`;
  if (parts.length >= 2 && (top === "pytest" || top === "_pytest")) return `the Python package ${top}`;
  if (parts.slice(0, -1).includes("node_modules")) return "installed Node packages (node_modules)";
  for (const runner of runners.node) {
    const topModule = new RegExp(`^${escapeRe(runner)}(?:\\.(?:[cm]?js|[cm]?ts|json))?$`);
    if (topModule.test(top)) return `the test runner ${runner}`;
  }
  return null;
}
