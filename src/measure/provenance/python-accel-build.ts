// The Python record's accelerator (./python-accel.ts), built by the gate as ./python-bytecode.ts
// compiles the hook: the measuring process, outside the sandbox, compiles the C source once per text
// and interpreter found on the sandbox's PATH, with that interpreter's own headers and extension
// suffix, into a private folder (0700); each run's read-only `py/` folder gets a copy. It never fails
// a run: without gcc, without Python.h (Debian's python3-dev), or when the build fails, nothing is
// placed and the hook does the same work in Python (the start line of each process says which).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { access, copyFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ACCEL_FILE_STEM, ACCEL_SOURCE } from "./python-accel.js";
import { buildFolder, findInterpreters } from "./python-bytecode.js";

const run = promisify(execFile);

/** `-I -S`: nothing of the environment or a site folder; prints the include folder and EXT_SUFFIX. */
const PATHS = "import sysconfig; print(sysconfig.get_paths()['include']); print(sysconfig.get_config_var('EXT_SUFFIX'))";

interface Built {
  dir: string;
  /** `ranex-accel<EXT_SUFFIX>` for each interpreter whose build worked. */
  files: string[];
}

const built = new Map<string, Promise<Built>>();

/**
 * Switches for the tests only, read in the process that places the run (the measuring process gets
 * `RANEX_PY_ACCEL=0` passed on by ../spawn-measurer.ts): `RANEX_PY_ACCEL=0` places no accelerator;
 * `RANEX_PY_ACCEL_INCLUDE` replaces every interpreter's include folder (a missing one: a failed build).
 */
function switches(env: NodeJS.ProcessEnv = process.env): { off: boolean; include: string | undefined } {
  return { off: env.RANEX_PY_ACCEL === "0", include: env.RANEX_PY_ACCEL_INCLUDE };
}

/** Builds the accelerator for every interpreter found, once per text and include folder. Never fails. */
export function buildAccelerator(): Promise<Built> {
  const { off, include } = switches();
  if (off) return Promise.resolve({ dir: "", files: [] });
  const key = createHash("sha256").update(include ?? "").update("\0").update(ACCEL_SOURCE).digest("hex");
  let entry = built.get(key);
  if (entry === undefined) {
    entry = build(include).catch(() => ({ dir: "", files: [] }));
    built.set(key, entry);
  }
  return entry;
}

async function build(include: string | undefined): Promise<Built> {
  const { dir, file: source } = await buildFolder("ranex-pyaccel-", "accel.c", ACCEL_SOURCE);
  const files = new Set<string>();
  await Promise.all((await findInterpreters()).map(async (python) => {
    const paths = await run(python, ["-I", "-S", "-c", PATHS], { timeout: 30_000 }).then((r) => r.stdout.trim().split("\n"), () => []);
    const headers = include ?? paths[0];
    const suffix = paths[1];
    if (headers === undefined || suffix === undefined || !/^[\w.-]+\.so$/.test(suffix)) return;
    if (!(await access(join(headers, "Python.h")).then(() => true, () => false))) return;
    const name = ACCEL_FILE_STEM + suffix;
    const ok = await run("gcc", ["-shared", "-fPIC", "-O2", "-I", headers, "-o", join(dir, name), source], { timeout: 120_000 }).then(() => true, () => false);
    if (ok) files.add(name);
  }));
  return { dir, files: [...files] };
}

/** Copies the accelerator into a run's `py` folder; a file that cannot be copied leaves that interpreter's hook in Python. */
export async function placeAccelerator(pyDir: string): Promise<void> {
  const { dir, files } = await buildAccelerator();
  await Promise.all(files.map((name) => copyFile(join(dir, name), join(pyDir, name)).catch(() => undefined)));
}
