// The provenance record of one run, as the gate keeps it: what the hooks in the run's processes
// reported through the record's pipe (./pipe.ts), parsed and bounded. Plain data: it is part of the
// run's evidence, cached with a base run, and read by the pure judgment in ./judge.ts.
import { NODE_RAN_LIMIT } from "./node-ran.js";

export interface RecordedProcess {
  pid: number;
  ppid: number;
  lang: "python" | "node";
  /** The command line, shortened. */
  argv: string;
  /** The process reported its end with the nonce it started with (a forged end line has none). */
  ended: boolean;
  /** node:test's child: the test file it ran (relative to the tree when inside it). */
  testFile?: string;
  /**
   * node:test's child: the tests node:test's own reporter serialized as passed there (./node-ran.ts),
   * under the process's nonce; `ranDone` when its last such line came, `ranCut` past its bound.
   */
  passed?: string[];
  ranDone?: boolean;
  ranCut?: boolean;
  /** Python: its hook ran behind the gate's C filter (./python-accel.ts); absent when it ran in Python alone. */
  accel?: true;
}

export interface RecordedCode {
  /** Relative to the tree's root. */
  path: string;
  kind: "source" | "bytecode" | "native" | "module";
  /** `stdlib:<name>`, `runner:<name>`, `installed:<name>:<site dir>`: the name it takes from someone else. */
  shadows?: string;
  /** A .pyc's flags word (1: a hash pyc whose source is never checked). */
  pycFlags?: number;
}

export interface RecordedBody {
  /** The test file, relative to the tree's root when inside it. */
  file: string;
  /** The test's full name as the runner's report names it after the file (describe titles and title). */
  name: string;
  /** Which test of that name in the file (two may share one), as the process numbered them. */
  instance: number;
  result: "threw" | "ok";
  /** Which attempt (1 for the first; retries count up). */
  attempt: number;
}

export interface RecordedEvent {
  /** The audit event (`sys._getframe`, `ctypes.dlopen`, ...) or `replaced` (a watched function changed identity). */
  event: string;
  what: string;
  /** The file of the code that did it, relative to the tree when inside it; empty when unknown. */
  by: string;
  line: number;
}

export interface ProvenanceRecord {
  processes: RecordedProcess[];
  /** Code files of the tree that ran (each once). */
  code: RecordedCode[];
  /** Distribution metadata and .pth files of the tree that were read (entry points, plugins). */
  metadata: string[];
  /** Which tree file imported which module: a Python module name, or for Node the tree file it resolved (for the frozen test helpers). */
  imports: { name: string; by: string }[];
  /** Tree modules by the name they were loaded as (Python's `sys.modules` at exit): `shapes.testing` -> `src/shapes/testing.py`. */
  modules: { name: string; path: string }[];
  /**
   * Files of the tree that are not code, opened for reading, and the tree file whose code opened
   * each (`by`, empty when no tree code was on the stack): the test data the frozen tests read
   * (issue 19). Absent in records cached before it.
   */
  data?: { path: string; by: string }[];
  /** Files of the tree the run opened for writing: what it wrote is never its base's test data. */
  written?: string[];
  /**
   * Test bodies that threw, and later attempts of theirs that did not, as jest's and vitest's in-file
   * setup told them when they happened (src/runners/test-bodies.ts). Absent in records cached before it.
   */
  bodies?: RecordedBody[];
  events: RecordedEvent[];
  /** Lines beyond the bounds, or unreadable: counted, not kept. */
  dropped: number;
  /** Bytes the pipe carried. */
  bytes: number;
}

export const RECORD_LIMITS = { processes: 50, code: 400, metadata: 50, imports: 400, modules: 1000, data: 2000, written: 2000, events: 100, bodies: 2000, lineBytes: 4096 } as const;

export function emptyRecord(): ProvenanceRecord {
  return { processes: [], code: [], metadata: [], imports: [], modules: [], data: [], written: [], events: [], dropped: 0, bytes: 0 };
}

/**
 * Reads the record's lines. `treeRoot` is the tree as the run saw it (`/work`); paths inside it are
 * kept relative to it. Lines that are not the hooks' JSON are dropped: code under test may write to
 * the pipe too, but only what its start and end nonces vouch for says a process ended.
 */
export function parseRecord(text: string, treeRoot: string, bytes = Buffer.byteLength(text)): ProvenanceRecord {
  const record = emptyRecord();
  record.bytes = bytes;
  const root = `${treeRoot.replace(/\/+$/, "")}/`;
  const relative = (path: unknown): string => (typeof path !== "string" ? "" : path.startsWith(root) ? path.slice(root.length) : path);
  const nonces = new Map<number, string>();
  const seen = new Set<string>();
  const once = (key: string): boolean => (seen.has(key) ? false : (seen.add(key), true));
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let entry: Record<string, unknown>;
    try {
      entry = line.length > RECORD_LIMITS.lineBytes ? {} : JSON.parse(line) as Record<string, unknown>;
    } catch {
      entry = {};
    }
    const pid = typeof entry.pid === "number" ? entry.pid : -1;
    let kept = false;
    switch (entry.k) {
      case "start":
        if (typeof entry.nonce === "string" && !nonces.has(pid) && record.processes.length < RECORD_LIMITS.processes) {
          nonces.set(pid, entry.nonce);
          record.processes.push({
            pid, ppid: typeof entry.ppid === "number" ? entry.ppid : -1, lang: entry.lang === "node" ? "node" : "python",
            argv: typeof entry.argv === "string" ? entry.argv.slice(0, 200) : "", ended: false,
            ...(typeof entry.tf === "string" ? { testFile: relative(entry.tf), passed: [] } : {}),
            ...(entry.accel === 1 ? { accel: true as const } : {}),
          });
          kept = true;
        }
        break;
      case "end": {
        const started = record.processes.find((p) => p.pid === pid);
        if (started !== undefined && nonces.get(pid) === entry.nonce) {
          started.ended = true;
          kept = true;
        }
        break;
      }
      case "ran": {
        const started = record.processes.find((p) => p.pid === pid);
        if (started?.passed !== undefined && nonces.get(pid) === entry.nonce && started.ranDone !== true && Array.isArray(entry.n)) {
          for (const name of entry.n) if (typeof name === "string" && started.passed.length < NODE_RAN_LIMIT) started.passed.push(name);
          if (entry.done === true) started.ranDone = true;
          if (entry.cut === true) started.ranCut = true;
          kept = true;
        }
        break;
      }
      case "code": {
        const path = relative(entry.p);
        const kind = entry.kind === "bytecode" || entry.kind === "native" || entry.kind === "module" ? entry.kind : "source";
        if (path !== "" && once(`code:${path}`) && record.code.length < RECORD_LIMITS.code) {
          record.code.push({
            path, kind,
            ...(typeof entry.shadow === "string" && entry.shadow !== "" ? { shadows: entry.shadow } : {}),
            ...(typeof entry.flags === "number" ? { pycFlags: entry.flags } : {}),
          });
          kept = true;
        } else kept = seen.has(`code:${path}`) && path !== "";
        break;
      }
      case "meta": {
        const path = relative(entry.p);
        if (path !== "" && once(`meta:${path}`) && record.metadata.length < RECORD_LIMITS.metadata) {
          record.metadata.push(path);
          kept = true;
        } else kept = seen.has(`meta:${path}`) && path !== "";
        break;
      }
      case "imp": {
        // Python names a module (`shapes.testing`); Node the file it resolved, kept relative like every path.
        const name = relative(entry.n);
        const by = relative(entry.by);
        if (name !== "" && once(`imp:${name}:${by}`) && record.imports.length < RECORD_LIMITS.imports) {
          record.imports.push({ name, by });
          kept = true;
        } else kept = seen.has(`imp:${name}:${by}`);
        break;
      }
      case "mod": {
        const name = typeof entry.n === "string" ? entry.n : "";
        const path = relative(entry.p);
        if (name !== "" && path !== "" && once(`mod:${name}:${path}`) && record.modules.length < RECORD_LIMITS.modules) {
          record.modules.push({ name, path });
          kept = true;
        } else kept = seen.has(`mod:${name}:${path}`);
        break;
      }
      case "data": {
        const path = relative(entry.p);
        const by = relative(entry.by);
        const data = record.data ?? (record.data = []);
        if (path !== "" && !path.startsWith("/") && once(`data:${path}:${by}`) && data.length < RECORD_LIMITS.data) {
          data.push({ path, by });
          kept = true;
        } else kept = seen.has(`data:${path}:${by}`);
        break;
      }
      case "wrote": {
        const path = relative(entry.p);
        const written = record.written ?? (record.written = []);
        if (path !== "" && !path.startsWith("/") && once(`wrote:${path}`) && written.length < RECORD_LIMITS.written) {
          written.push(path);
          kept = true;
        } else kept = seen.has(`wrote:${path}`);
        break;
      }
      case "body": {
        const file = relative(entry.f);
        const name = typeof entry.n === "string" ? entry.n : "";
        const result = entry.r === "ok" ? "ok" : entry.r === "threw" ? "threw" : null;
        const attempt = typeof entry.a === "number" && Number.isFinite(entry.a) ? entry.a : 1;
        const instance = typeof entry.i === "number" && Number.isFinite(entry.i) ? entry.i : 0;
        const bodies = record.bodies ?? (record.bodies = []);
        const key = `body:${pid}:${file}:${name}:${instance}:${result}:${attempt}`;
        if (file !== "" && name !== "" && result !== null && once(key) && bodies.length < RECORD_LIMITS.bodies) {
          bodies.push({ file, name, instance: pid * 100_000 + instance, result, attempt });
          kept = true;
        } else kept = seen.has(key);
        break;
      }
      case "tamper": {
        const event = typeof entry.ev === "string" ? entry.ev : "";
        const what = typeof entry.what === "string" ? entry.what : "";
        const by = relative(entry.by);
        if (event !== "" && once(`ev:${event}:${what}:${by}`) && record.events.length < RECORD_LIMITS.events) {
          record.events.push({ event, what, by, line: typeof entry.line === "number" ? entry.line : 0 });
          kept = true;
        } else kept = seen.has(`ev:${event}:${what}:${by}`);
        break;
      }
      default:
        break;
    }
    if (!kept) record.dropped += 1;
  }
  return record;
}
