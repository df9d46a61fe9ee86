import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { MeasurePlan, MeasureResult } from "./plan.js";
import { KEY_PIPE_FD } from "./key-pipe.js";
import { groupMembers, killEach, killTree, stillLive } from "./process-tree.js";

export class MeasureError extends Error {
  override readonly name = "MeasureError";
}

/** The only variables the measuring process gets: nothing inherited, so no key or token can leak in. */
export const MEASURER_ENV: Readonly<Record<string, string>> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  LANG: "C.UTF-8",
  // Tests only: the Python record without its C accelerator (./provenance/python-accel-build.ts).
  ...(process.env.RANEX_PY_ACCEL === "0" ? { RANEX_PY_ACCEL: "0" } : {}),
};

export interface Measurer {
  /**
   * Hands the plan over and waits until the measuring process group is gone. Once only. `sealKey`
   * goes through the key pipe (fd 4, beside the lifeline on fd 3), never the plan or the environment.
   */
  measure(plan: MeasurePlan, signal?: AbortSignal, secrets?: { sealKey?: Uint8Array }): Promise<MeasureResult>;
  /** Ends the process if it was never given a plan (the judgment stopped before measuring). */
  dispose(): Promise<void>;
  /** Its process id, while it has one: its CPU while it loads is the judgment's own, not the machine's load. */
  readonly pid: number | undefined;
}

/**
 * Starts the separate, keyless Node process that will measure. Started early, it loads while the
 * parent still reads git (the plan goes in later over stdin); `measure` resolves only after it and
 * every process of its group have exited: only then may the caller evaluate and sign (invariant 6).
 */
export function startMeasurer(): Measurer {
  const entry = new URL("./child" + (import.meta.url.endsWith(".ts") ? ".ts" : ".js"), import.meta.url);
  // Running from TypeScript sources (tests, `npm run demo`): load tsx by absolute URL, since the
  // child's working directory is scratch space with no node_modules.
  const loader = import.meta.url.endsWith(".ts") ? ["--import", import.meta.resolve("tsx/esm")] : [];
  const child = spawn(process.execPath, [...loader, fileURLToPath(entry)], {
    cwd: tmpdir(),
    env: { ...MEASURER_ENV },
    // fd 3: a lifeline. Nothing is ever written to it; when this process dies, however it dies (a
    // SIGKILL runs no cleanup), the kernel closes it and the child ends itself (child.ts). Node has
    // no PR_SET_PDEATHSIG, and the child's own group would otherwise outlive us (issue 21).
    // fd 4 (KEY_PIPE_FD): the key pipe, written once when the plan goes over and closed at once.
    stdio: ["pipe", "ignore", "pipe", "pipe", "pipe"],
    detached: true, // its own process group, so we can wait for and end all of it
  });
  child.stdio[3]?.on("error", () => undefined);
  const { stdin, stderr: errors } = child as typeof child & { stdin: Writable; stderr: Readable };
  let stderr = "";
  errors.setEncoding("utf8");
  errors.on("data", (text: string) => {
    stderr = (stderr + text).slice(-8192);
  });
  const closed = new Promise<number | null>((resolve) => {
    child.once("error", () => resolve(null));
    child.once("close", (exitCode) => resolve(exitCode));
  });
  // Superseded or unused: end the measuring process at once. Its sandboxes go with it (bwrap runs
  // with --die-with-parent, and each sandbox is a pid namespace whose init dies with bwrap).
  // The tree is frozen and read before the kill (./process-tree.ts, killTree): once the measuring
  // process is gone, its sandboxes are reparented and no longer found under it.
  let doomed: number[] = [];
  const kill = (): void => {
    if (child.pid !== undefined) doomed = [...new Set([...doomed, ...killTree(child.pid)])];
  };
  let used = false;
  return {
    pid: child.pid,
    async measure(plan, signal, secrets) {
      if (used) throw new MeasureError("a measuring process measures once");
      used = true;
      if (signal?.aborted === true) kill();
      signal?.addEventListener("abort", kill, { once: true });
      stdin.on("error", () => undefined); // a killed child closes its stdin: the exit code says why
      const keyPipe = child.stdio[KEY_PIPE_FD] as Writable;
      keyPipe.on("error", () => undefined);
      keyPipe.end(secrets?.sealKey === undefined ? Buffer.alloc(0) : Buffer.from(secrets.sealKey));
      stdin.end(JSON.stringify(plan));
      let code: number | null;
      try {
        code = await closed;
      } finally {
        signal?.removeEventListener("abort", kill);
      }
      await endGroup(child.pid, doomed);
      signal?.throwIfAborted();
      if (code !== 0) {
        const last = stderr.trim().split("\n").slice(-3).join(" | ");
        throw new MeasureError(`the measuring process exited with code ${code}${last ? `: ${last}` : ""}`);
      }
      return JSON.parse(await readFile(join(plan.scratchDir, "result.json"), "utf8")) as MeasureResult;
    },
    async dispose() {
      if (used) return;
      used = true;
      kill();
      await closed;
      await endGroup(child.pid, doomed);
    },
  };
}

/**
 * Kills whatever is left of the process group, and of the tree read when it was killed, and waits
 * until none of it runs. Zombies are left to their reaper: they can no longer run code.
 */
async function endGroup(pid: number | undefined, tree: readonly number[]): Promise<void> {
  if (pid === undefined) return;
  for (let attempt = 0; attempt < 250; attempt++) {
    const live = [...new Set([...groupMembers(pid), ...stillLive(tree)])];
    if (live.length === 0) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch { /* the group is gone; the tree may not be */ }
    killEach(live);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new MeasureError(`processes of the measuring process ${pid} survived SIGKILL for 5 s`);
}
