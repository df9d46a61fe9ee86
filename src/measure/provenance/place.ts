// Gives a run its provenance record: the FIFO (./pipe.ts) and the hooks for the runtimes its command
// starts, all in the run's own gate folder, mounted read-only. Python gets a `sitecustomize` on
// PYTHONPATH (it loads the hook compiled ahead: ./python-bytecode.ts, and its accelerator:
// ./python-accel-build.ts); Node a preload on NODE_OPTIONS.
// A command that sets either itself (without extending it) keeps the hook out: a note, not a
// failure, since the command is the owner's policy.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { openRecordPipe, type RecordPipe } from "./pipe.js";
import { NODE_PRELOAD_REST, nodePreloadRestSource, nodePreloadSource } from "./node-hook.js";
import { compileNodeRest, placeNodeRestCache } from "./node-cache.js";
import { buildAccelerator, placeAccelerator } from "./python-accel-build.js";
import { compileSitecustomize, placeSitecustomize } from "./python-bytecode.js";
import { pythonHookSource } from "./python-hook.js";

export interface PlacedProvenance {
  placed: ("python" | "node")[];
  notes: string[];
  /** PYTHONPATH and NODE_OPTIONS parts for the run (merged with the canary's by the caller). */
  pythonPath: string | null;
  nodeOptions: string | null;
  pipe: RecordPipe | null;
}

const RUNS_PYTHON = /\bpython[0-9.]*\b|\bpy\.?test\b|\bpytest\b/;
const RUNS_NODE = /\bnode(?:js)?\b|\bnpx\b|\bnpm\b|\byarn\b|\bpnpm\b|\bjest\b|\bvitest\b|\bmocha\b/;

/** The command starts a runtime the record has a hook for (then each run of it gets a pipe). */
export function recordsCommand(command: string): boolean {
  return RUNS_PYTHON.test(command) || RUNS_NODE.test(command);
}

/**
 * Starts compiling Python's hook for runs whose gate folder the sandbox sees as `seenAs` and whose
 * tree as `treeRoot` (./python-bytecode.ts), and Node's preload (./node-cache.ts), without waiting:
 * the first run then finds it done.
 */
export function prepareProvenance(command: string, seenAs: string, treeRoot: string): void {
  if (RUNS_PYTHON.test(command)) {
    void compileSitecustomize(pythonHookSource(`${seenAs}/record`, treeRoot), `${seenAs}/py/sitecustomize.py`);
    void buildAccelerator();
  }
  if (RUNS_NODE.test(command)) void compileNodeRest(`${seenAs}/node/${NODE_PRELOAD_REST}`);
}

/** `nodeReporter`: the gate's node:test reporter as the run sees it (`$RANEX_NODE_REPORTER`), which loads no tree code. */
export async function placeProvenance(command: string, hostDir: string, seenAs: string, treeRoot: string, nodeReporter: string | null = null): Promise<PlacedProvenance> {
  const placed: PlacedProvenance = { placed: [], notes: [], pythonPath: null, nodeOptions: null, pipe: null };
  const python = RUNS_PYTHON.test(command);
  const node = RUNS_NODE.test(command);
  if (!python && !node) return placed;
  await mkdir(hostDir, { recursive: true });
  const fifo = `${seenAs}/record`;
  if (python) {
    if (/\bPYTHONPATH\b/.test(command) && !/\$\{?PYTHONPATH\b/.test(command)) {
      placed.notes.push("the command sets PYTHONPATH itself, so Python's hook (a sitecustomize on it) was not added");
    } else {
      const py = join(hostDir, "py");
      await mkdir(py, { recursive: true });
      await Promise.all([placeSitecustomize(py, pythonHookSource(fifo, treeRoot), `${seenAs}/py/sitecustomize.py`), placeAccelerator(py)]);
      placed.pythonPath = `${seenAs}/py`;
      placed.placed.push("python");
    }
  }
  if (node) {
    if (/\bNODE_OPTIONS\b/.test(command)) {
      placed.notes.push("the command sets NODE_OPTIONS itself, so Node's preload was not added");
    } else {
      await mkdir(join(hostDir, "node"), { recursive: true });
      await writeFile(join(hostDir, "node", NODE_PRELOAD_REST), nodePreloadRestSource());
      // The caches first: the preload says which Node versions may read them by the fs binding.
      const fastRead = await placeNodeRestCache(join(hostDir, "node"), `${seenAs}/node/${NODE_PRELOAD_REST}`);
      await writeFile(join(hostDir, "node", "record.cjs"), nodePreloadSource(fifo, treeRoot, seenAs, nodeReporter, fastRead));
      placed.nodeOptions = `--require ${seenAs}/node/record.cjs`;
      placed.placed.push("node");
    }
  }
  // The FIFO comes from the pool of the folder the gate folders are made in (./fifos.ts).
  if (placed.placed.length > 0) placed.pipe = await openRecordPipe(join(hostDir, "record"), dirname(hostDir));
  return placed;
}
