// Which Go toolchain the runs get: `go env` in the runs' own sandbox (issue 22). It costs a sandbox
// and a `go` process, 1 to 2 s of a loaded machine, and every Go judgment asked it again. Its answer
// depends only on the go binary the sandbox's PATH finds, its GOROOT's defaults (`go.env`,
// `VERSION`), the sandbox's fixed environment (./go-std.ts passes the command's own assignments) and
// the command asked. So it is kept on disk, beside the layers only the gate writes, under a key of
// exactly those: a new toolchain (another binary, a changed mtime or size) is asked again. Also
// remembered in the measuring process, for a judgment that needs several flag sets.
import { access, constants, mkdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { canonicalJson, sha256Hex } from "../../kernel/index.js";
import type { Sandbox } from "../../sandbox/index.js";
import { toolchainPath } from "../../sandbox/profile.js";
import { releaseTree } from "../../sandbox/tree-limit.js";
import { GO_ENV } from "../../runners/go.js";

/** What decides which layer a toolchain gets: its version, target, CGO setting and C compiler. */
export const ENV_VARS = ["GOVERSION", "GOROOT", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "GOEXPERIMENT", "GOFLAGS", "CGO_ENABLED", "CC", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_LDFLAGS"];

export type GoEnv = { env: Record<string, string>; cached: boolean } | { error: string };

const remembered = new Map<string, Record<string, string>>();

/**
 * `go env` for a run with `assignments` (`CGO_ENABLED=0`) before its go: from the cache when the
 * toolchain is the one it was asked of, else asked in the sandbox and kept.
 */
export async function goEnv(sandbox: Sandbox, cacheDir: string, workdir: string, assignments: readonly string[]): Promise<GoEnv> {
  const identity = await toolchainIdentity(sandbox, assignments);
  const file = identity === null ? null : join(cacheDir, ".go-env", `${identity}.json`);
  if (identity !== null && file !== null) {
    const known = remembered.get(identity) ?? await readFile(file, "utf8").then((t) => JSON.parse(t) as Record<string, string>, () => null);
    if (known !== null && ENV_VARS.every((name) => typeof known[name] === "string")) {
      remembered.set(identity, known);
      return { env: known, cached: true };
    }
  }
  const asked = await askGoEnv(sandbox, workdir, assignments);
  if ("error" in asked || identity === null || file === null) return asked;
  remembered.set(identity, asked.env);
  // Written whole or not at all: a reader never sees half an answer.
  const temp = `${file}.${process.pid}.tmp`;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(temp, JSON.stringify(asked.env));
  await rename(temp, file).catch(() => rm(temp, { force: true }));
  return asked;
}

/**
 * The key of everything `go env` depends on, or null when no go is found on the sandbox's PATH
 * from here (then it is asked every time: the sandbox decides).
 */
export async function toolchainIdentity(sandbox: Sandbox, assignments: readonly string[]): Promise<string | null> {
  for (const dir of toolchainPath(sandbox.profile, true).split(":")) {
    const path = join(dir, "go");
    if (!(await access(path, constants.X_OK).then(() => true, () => false))) continue;
    const real = await realpath(path);
    const root = dirname(dirname(real));
    const facts = async (p: string): Promise<[number, number] | null> => stat(p).then((s) => [s.mtimeMs, s.size] as [number, number], () => null);
    return sha256Hex(canonicalJson({
      path, real, binary: await facts(real), goEnvFile: await facts(join(root, "go.env")), version: await facts(join(root, "VERSION")),
      sandboxPath: toolchainPath(sandbox.profile), backend: sandbox.profile.backend ?? null, command: GO_ENV, vars: ENV_VARS, assignments: [...assignments], layout: 1,
    }));
  }
  return null;
}

async function askGoEnv(sandbox: Sandbox, workdir: string, assignments: readonly string[]): Promise<GoEnv> {
  await mkdir(workdir, { recursive: true });
  try {
    const prefix = assignments.length === 0 ? "" : `${assignments.join(" ")} `;
    const run = await sandbox.run({ command: `${GO_ENV} ${prefix}go env -json ${ENV_VARS.join(" ")}`, workdir, env: {}, timeoutMs: 60_000, network: false });
    if (run.exitCode !== 0) return { error: `go env failed: ${run.violation ?? run.outputTail.trim().split("\n").pop() ?? `exit ${run.exitCode ?? "unknown"}`}` };
    const parsed = JSON.parse(run.outputTail.slice(run.outputTail.indexOf("{"))) as Record<string, unknown>;
    return { env: Object.fromEntries(ENV_VARS.map((name) => [name, typeof parsed[name] === "string" ? parsed[name] : ""])), cached: false };
  } catch (err) {
    return { error: `go env could not be read: ${(err as Error).message}` };
  } finally {
    releaseTree(workdir);
    await rm(workdir, { recursive: true, force: true });
  }
}
