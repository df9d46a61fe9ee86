// The measuring process (DESIGN.md, invariant 6). Started by spawn-measurer.ts with an environment
// built from empty; it refuses to run if anything secret reached it, reads its plan from stdin, runs
// the untrusted work in the sandbox, and writes the raw runs to <scratchDir>/result.json.
import { createReadStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import { Socket } from "node:net";
import { join } from "node:path";
import { assertKeyless } from "../sandbox/index.js";
import { releaseTrees } from "../sandbox/tree-limit.js";
import { measure } from "./measure.js";
import type { MeasurePlan } from "./plan.js";
import { KEY_PIPE_FD } from "./key-pipe.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The key pipe (fd 4): the sealing key for tests.sealed, or nothing. Read to its end and closed before
 * any sandbox starts, so no process this one starts inherits it; a key never sits in a file or in
 * the environment here. A process started without the pipe simply has no key.
 */
async function readKeyPipe(): Promise<Uint8Array | null> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of createReadStream("", { fd: KEY_PIPE_FD, autoClose: true })) chunks.push(chunk as Buffer);
  } catch {
    return null;
  }
  const key = Buffer.concat(chunks);
  return key.length === 0 ? null : new Uint8Array(key);
}

async function childMain(): Promise<number> {
  // Time from process start until here: Node and module loading, what the measuring process costs.
  const startup = Math.round(performance.now());
  try {
    assertKeyless(process.env, process.argv);
  } catch (err) {
    process.stderr.write(`measuring process refused to start: ${(err as Error).message}\n`);
    return 3;
  }
  const plan = JSON.parse(await readStdin()) as MeasurePlan;
  const sealKey = await readKeyPipe();
  let result;
  try {
    result = await measure(plan, { sealKey });
  } finally {
    // The trees' overlays (sandbox/tree-limit.ts) go before the parent removes the trees.
    releaseTrees();
  }
  result.timings["measurer-startup"] = startup;
  await writeFile(join(plan.scratchDir, "result.json"), JSON.stringify(result));
  return 0;
}

/**
 * The parent holds the other end of fd 3 and never writes to it: end of file there means the parent
 * is gone, and so is every reason to measure. The whole group ends at once; each sandbox goes with
 * it (bwrap runs with --die-with-parent, and a sandbox's pid namespace dies with its init).
 */
function dieWithParent(): void {
  let lifeline: Socket;
  try {
    lifeline = new Socket({ fd: 3, readable: true, writable: false });
  } catch {
    return; // started by hand, without a lifeline
  }
  const end = (): void => {
    try {
      process.kill(-process.pid, "SIGKILL");
    } catch { /* not a group leader */ }
    process.kill(process.pid, "SIGKILL");
  };
  lifeline.on("end", end).on("close", end).on("error", end);
  lifeline.resume();
  // The lifeline alone must not keep this process alive once its work is done.
  lifeline.unref();
}

dieWithParent();
childMain().then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`measuring process failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
