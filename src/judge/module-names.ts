// The Python module names the sandbox's python3 resolves outside the tree: its standard library and
// the top-level import names of the distributions it sees. Asked of the same python3 the runs use
// (the policy's toolchain.path first, then the sandbox's PATH), isolated (-I: no PYTHON* variables,
// no user site, no working folder on sys.path) from the root folder, so nothing of a tree is read.
// Once per PATH per process: installing a distribution on the machine means a restart, as it does
// for the sandbox profile.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { SANDBOX_PATH } from "../sandbox/profile.js";
import { PYTHON_STDLIB } from "../measure/diff/python-stdlib.js";

const run = promisify(execFile);

const SCRIPT = [
  "import sys, json, importlib.metadata as m",
  "names = set()",
  "for top, dists in m.packages_distributions().items():",
  "    names.add(top)",
  "print(json.dumps({'stdlib': sorted(sys.stdlib_module_names), 'installed': sorted(names)}))",
].join("\n");

export interface PythonNames {
  pythonStdlib: readonly string[];
  pythonInstalled: readonly string[];
}

const asked = new Map<string, Promise<PythonNames>>();

export function pythonModuleNames(toolchain: readonly string[]): Promise<PythonNames> {
  const path = [...toolchain, SANDBOX_PATH].join(":");
  let names = asked.get(path);
  if (names === undefined) {
    names = ask(path);
    asked.set(path, names);
  }
  return names;
}

async function ask(path: string): Promise<PythonNames> {
  try {
    const { stdout } = await run("python3", ["-I", "-c", SCRIPT], { env: { PATH: path }, cwd: "/", timeout: 20_000, maxBuffer: 4 * 1024 * 1024 });
    const parsed = JSON.parse(stdout) as { stdlib: string[]; installed: string[] };
    return { pythonStdlib: parsed.stdlib, pythonInstalled: parsed.installed.filter((n) => /^[A-Za-z_]\w*$/.test(n)) };
  } catch {
    // No python3 in the sandbox: the runs cannot import Python either. The committed list still
    // names the standard library, so its names are never free to take.
    return { pythonStdlib: PYTHON_STDLIB, pythonInstalled: [] };
  }
}
