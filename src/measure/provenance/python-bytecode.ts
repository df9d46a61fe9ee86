// Python's hook compiled ahead by the gate (issue 19's cost). Python keeps no .pyc of a module on a
// read-only folder, so every Python process of every run compiled the hook's sitecustomize from
// source: about 20 M instructions, 2.5 % of pytest on python-calc. The text is the same for every run
// in the sandbox (its FIFO and tree are the same paths there), so the measuring process compiles it
// once per text and interpreter: it runs each interpreter the sandbox's PATH finds (/usr is the
// host's, bound read-only) outside the sandbox on the gate's own file, nothing of the tree, into a
// private folder (0700), and each run's read-only `py/__pycache__` gets a copy. They are the
// interpreter's own cache files (`sitecustomize.<cache tag>.pyc`), checked against the source's hash:
// the interpreter that runs loads its own, or compiles the source as before when there is none (a
// virtual environment's or uv's Python of another version) or it does not match.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The folders of the sandbox's PATH that hold interpreters (its /bin is /usr/bin). */
const INTERPRETER_DIRS = ["/usr/local/bin", "/usr/bin"];
const INTERPRETER = /^python3(\.\d+)?$/;

/**
 * argv: the source, the name it has in the run (the code's file name), the folder for the cache
 * file. Prints the file's name. `-I -S`: no environment, no site, no user code.
 */
const COMPILE = [
  "import sys, py_compile",
  "tag = sys.implementation.cache_tag",
  "name = 'sitecustomize.' + tag + '.pyc'",
  "py_compile.compile(sys.argv[1], cfile=sys.argv[3] + '/' + name, dfile=sys.argv[2], doraise=True,",
  "    invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)",
  "print(name)",
].join("\n");

interface Compiled {
  dir: string;
  /** Cache file names in `dir`: one per interpreter that compiled the text. */
  files: string[];
}

/** By the text's digest: one compile per text and measuring process. */
const compiled = new Map<string, Promise<Compiled>>();
let interpreters: Promise<string[]> | null = null;

/** The interpreters the sandbox's PATH finds, by their real path (python3 and python3.11 are one). */
export function findInterpreters(): Promise<string[]> {
  interpreters ??= (async () => {
    const found = new Set<string>();
    for (const folder of INTERPRETER_DIRS) {
      for (const name of (await readdir(folder).catch(() => [] as string[])).filter((n) => INTERPRETER.test(n))) {
        const real = await realpath(join(folder, name)).catch(() => null);
        if (real !== null) found.add(real);
      }
    }
    return [...found];
  })();
  return interpreters;
}

/**
 * Compiles `source` (the hook's sitecustomize, whose file the run sees as `seenAs`) with every
 * interpreter found, once per text. Never fails: without a cache file the run compiles the source.
 */
export function compileSitecustomize(source: string, seenAs: string): Promise<Compiled> {
  const key = createHash("sha256").update(seenAs).update("\0").update(source).digest("hex");
  let entry = compiled.get(key);
  if (entry === undefined) {
    entry = build(source, seenAs).catch(() => ({ dir: "", files: [] }));
    compiled.set(key, entry);
  }
  return entry;
}

/**
 * A private folder (0700) holding `name` with `text`, for a build that runs outside the sandbox. The
 * runs get copies: the folder leaves with the measuring process.
 */
export async function buildFolder(prefix: string, name: string, text: string): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, name);
  await writeFile(file, text);
  return { dir, file };
}

async function build(source: string, seenAs: string): Promise<Compiled> {
  const { dir, file } = await buildFolder("ranex-pyc-", "sitecustomize.py", source);
  const files = new Set<string>();
  await Promise.all((await findInterpreters()).map(async (python) => {
    const name = await run(python, ["-I", "-S", "-c", COMPILE, file, seenAs, dir], { timeout: 30_000 }).then((r) => r.stdout.trim(), () => "");
    if (/^sitecustomize\.[\w.-]+\.pyc$/.test(name)) files.add(name);
  }));
  return { dir, files: [...files] };
}

/** Writes the hook's sitecustomize into a run's `py` folder, with its cache files beside it. */
export async function placeSitecustomize(pyDir: string, source: string, seenAs: string): Promise<void> {
  await writeFile(join(pyDir, "sitecustomize.py"), source);
  const { dir, files } = await compileSitecustomize(source, seenAs);
  if (files.length === 0) return;
  await mkdir(join(pyDir, "__pycache__"), { recursive: true });
  // A file that cannot be copied leaves that interpreter to compile the source: slower, never less recorded.
  await Promise.all(files.map((name) => copyFile(join(dir, name), join(pyDir, "__pycache__", name)).catch(() => undefined)));
}
