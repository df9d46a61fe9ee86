// Judging a run's provenance record (issue 19): pure, from the record and what the diff says. The
// run is not believed (tests.regression FAILs, unsafe) when what ran is not what was reviewed:
//   - a module of the standard library, of the runner, or of an installed distribution other than the
//     repository's own was loaded from a file the change added or modified;
//   - tree code ran from bytecode or a native file the change committed, or from a hash .pyc that
//     is never checked against its source;
//   - distribution metadata the change committed was read (entry points: a plugin from the tree);
//   - code of the tree outside the owner's frozen files reached into frames or the collector, set
//     attributes of the runner's or the standard library's classes, or a function the verdict
//     passes through (assertions, the runner's report path) was replaced;
//   - a slot of a module that is not the tree's holds, at exit, another callable than its module's
//     body left there, which the base run's record does not show (./python-swapped.ts);
//   - a slot of such a module, or of a class one defines, changed during a test's call or before the
//     first test, and not by the test's own monkeypatch fixture, which the base run's record does
//     not show, or a module under a name of the standard library or the runner that the import
//     system did not load (./python-between-tests.ts);
//   - a value a frozen test compared says it equals an object it has never seen, its __eq__ in a
//     file the change added or modified (./python-lying.ts);
//   - a function a CommonJS module the change left alone exported, or the module require() returns for
//     it, was replaced, which the base run's record does not show (./node-exports.ts);
//   - node:assert's loose equal or deepEqual met an object or a function where a frozen test expected a
//     primitive, which the base run's record does not show (./node-loose.ts);
//   - a function, class or object of the tree was found at exit in a module that is not the tree's,
//     or tree code wrote the report or started a process after it was written (./python-planted.ts);
//   - a runtime the gate placed its hook in left no record, or its first process no end;
//   - the report says a test passed that its node:test child never passed through node:test's own
//     reporter (./judge-ran.ts), or whose body threw in its last attempt (jest, vitest: ./judge-bodies.ts).
import type { Detail } from "../../kernel/types.js";
import type { SuiteRun } from "../report-types.js";
import type { ProvenanceRecord, RecordedCode, RecordedEvent } from "./record.js";
import { passesThatThrew } from "./judge-bodies.js";
import { unreportedPasses } from "./judge-ran.js";

/** What a run carries about its record: where the hooks were placed, and what they saw. */
export interface RunProvenance {
  /** The runtimes the gate's hook was given to (none: the record proves nothing either way). */
  placed: ("python" | "node")[];
  record: ProvenanceRecord;
  /** Why a hook could not be placed (a command that sets PYTHONPATH or NODE_OPTIONS itself). */
  notes: string[];
}

export interface ProvenanceContext {
  /** Paths the change added, modified, renamed or retyped (merge base to head), relative to the root. */
  changed: ReadonlySet<string>;
  /** The base's frozen paths: what the owner's own tests and harness do is theirs. */
  frozen: ReadonlySet<string>;
  /** The base tree's files: a package the base already has under that name is the repository's own. */
  baseFiles?: ReadonlySet<string>;
}

/** The module or package `top` that `path` belongs to already exists on the base (the repository's own). */
function ownOnBase(code: RecordedCode, baseFiles: ReadonlySet<string> | undefined): boolean {
  if (baseFiles === undefined) return false;
  const top = (code.shadows ?? "").split(":")[1] ?? "";
  const parts = code.path.split("/");
  const at = parts.findIndex((part) => part === top || part.split(".")[0] === top);
  if (at < 0) return false;
  const prefix = parts.slice(0, at + 1).join("/");
  for (const file of baseFiles) if (file === prefix || file.startsWith(`${prefix}/`)) return true;
  return false;
}

/** A hash-based .pyc (bit 0) whose source is not checked (bit 1 clear): it runs whatever it holds. */
export function uncheckedHashPyc(flags: number | undefined): boolean {
  return flags !== undefined && (flags & 1) === 1 && (flags & 2) === 0;
}

function shadowText(code: RecordedCode): string {
  const [kind, name, site] = (code.shadows ?? "").split(":");
  if (kind === "stdlib") return `the standard library's module ${name}`;
  if (kind === "runner") return `the test runner's module ${name}`;
  return `${name}, a module of the installed distribution in ${site ?? "site-packages"}`;
}

/** The repository's own distribution is installed from its tree (an editable or in-tree install). */
function ownInstall(code: RecordedCode): boolean {
  const [kind, , site] = (code.shadows ?? "").split(":");
  return kind === "installed" && site !== undefined && !site.startsWith("/");
}

/**
 * Under an entry the once-only setup created (`.venv/`, `node_modules/`): installed on a clean copy
 * of the base and read-only in every run, so no more the change's code than site-packages is (found
 * on frostming/marko: pytest from its pdm.lock formats a failing canary's traceback through tb_frame).
 */
function installedBySetup(run: SuiteRun, path: string): boolean {
  return (run.deps?.entries ?? []).some((entry) => path === entry || path.startsWith(`${entry}/`));
}

/**
 * `base` is the base run of the same judgment: what its record saw the runner (or the owner's code) do
 * is not blamed on the change (a slot the runner itself swaps happens on both).
 */
export function provenanceFindings(run: SuiteRun, context: ProvenanceContext, base?: SuiteRun): { problems: string[]; details: Detail[] } {
  const problems: string[] = [];
  const details: Detail[] = [];
  const provenance = run.provenance;
  if (provenance === undefined) return { problems, details };
  for (const note of provenance.notes) details.push({ kind: "provenance", message: `no provenance record: ${note}` });
  const { record } = provenance;
  const add = (message: string, path?: string): void => {
    problems.push(message);
    details.push({ kind: "provenance", message, ...(path === undefined ? {} : { path }) });
  };
  for (const code of record.code) {
    if (installedBySetup(run, code.path) && !context.changed.has(code.path)) continue;
    const installedOwn = code.shadows?.startsWith("installed:") === true && (ownInstall(code) || ownOnBase(code, context.baseFiles));
    if (code.shadows !== undefined && !installedOwn) {
      const message = `the ${run.label} run loaded ${shadowText(code)} from the tree: ${code.path}`;
      // The base's own such file (a vendored copy, say) is the owner's: listed, not blamed on the change.
      if (context.changed.has(code.path)) add(message, code.path);
      else details.push({ kind: "provenance", message: `${message} (as on the base)`, path: code.path });
      continue;
    }
    if (code.kind === "bytecode" && uncheckedHashPyc(code.pycFlags)) {
      add(`the ${run.label} run ran ${code.path}, a compiled file that Python never checks against its source (unchecked-hash .pyc): what ran is not the reviewed text`, code.path);
    } else if ((code.kind === "bytecode" || code.kind === "native") && context.changed.has(code.path)) {
      add(`the ${run.label} run ran ${code.path}, ${code.kind === "native" ? "a native library" : "compiled bytecode"} the change committed: what ran is not the reviewed text`, code.path);
    }
  }
  for (const path of record.metadata) {
    if (context.changed.has(path)) {
      add(`the ${run.label} run read ${path}, distribution metadata the change committed (an entry point or plugin loaded from the tree)`, path);
    }
  }
  const onBase = new Set((base?.provenance?.record.events ?? []).map((e) => `${e.event}\u0000${e.what}`));
  for (const event of record.events) {
    if (installedBySetup(run, event.by) && !context.changed.has(event.by)) continue;
    if (SLOT_EVENTS.has(event.event) && onBase.has(`${event.event}\u0000${event.what}`)) {
      details.push({ kind: "provenance", message: `during the ${run.label} run ${event.what} (as on the base)` });
      continue;
    }
    const finding = eventFinding(run.label, event, context);
    if (finding === null) continue;
    if (finding.owner) details.push({ kind: "provenance", message: finding.message, path: event.by });
    else add(finding.message, event.by === "" || event.by.startsWith("/") ? undefined : event.by);
  }
  for (const problem of unreportedPasses(run.label, record.processes, run.report?.cases ?? [])) add(problem);
  for (const problem of passesThatThrew(run.label, record.bodies, run.report?.cases ?? [])) add(problem);
  const cut = cutShort(run, provenance);
  if (cut !== null) add(cut);
  return { problems, details };
}

/** The record's findings about slots (not blamed on a file): the base run doing the same is the runner's, or the owner's. */
const SLOT_EVENTS: ReadonlySet<string> = new Set(["swapped", "between", "unloaded", "lying", "exports", "loose"]);

function eventFinding(label: string, event: RecordedEvent, context: ProvenanceContext): { message: string; owner: boolean } | null {
  const where = event.by === "" ? "code the gate cannot place" : `${event.by}${event.line > 0 ? `:${event.line}` : ""}`;
  const owner = event.by !== "" && context.frozen.has(event.by);
  if (event.event === "replaced") {
    // A replacement from an installed package (a plugin) is not the tree's doing.
    if (event.by.startsWith("/") && !event.by.startsWith("/work/")) return null;
    return { message: `during the ${label} run ${event.what} was replaced (by ${where}): the assertion library or the runner's report path was tampered with`, owner };
  }
  if (event.event === "swapped") {
    return { message: `during the ${label} run ${event.what} was replaced, which the base run did not do: a function or class that tests rely on (an oracle, the assertion library, the runner) is not the one its module defined`, owner: false };
  }
  if (event.event === "exports") {
    // A module the change modified is its own to rewrite (./node-exports.ts); one it left alone is not.
    return {
      message: `during the ${label} run ${event.what} was replaced, which the base run did not do: a function of a module the change left alone (a helper or an oracle the frozen tests take from it) is not the one its own code exported`,
      owner: context.changed.has(event.by),
    };
  }
  if (event.event === "loose") {
    // ./node-loose.ts: the owner's own loose comparison of an object (a URL with its text) is on the base too.
    return { message: `during the ${label} run ${event.what}, which the base run did not do: a value that converts itself to what a loose assertion expects passes it whatever it holds`, owner: false };
  }
  if (event.event === "between" && event.what.endsWith(" before the first test ran") && !event.what.includes(" (was ")) {
    // A test module's own name rebound before any test (./python-between-tests.ts, test_module_bindings).
    return { message: `during the ${label} run ${event.what}, which the base run did not do: a name a frozen test module bound (its oracle, a module it imports, a helper) holds something else, so what its tests compare with is not what they import`, owner: false };
  }
  if (event.event === "between") {
    return { message: `during the ${label} run ${event.what}, which the base run did not do: a function or class that tests rely on was swapped while the tests ran (and put back before the process ended)`, owner: false };
  }
  if (event.event === "unloaded") {
    return { message: `during the ${label} run ${event.what} was put into sys.modules under a name of the standard library or the runner without the import system loading it (built by code, or executed by hand), which the base run did not do: what tests import under that name may not be what its file defines`, owner: false };
  }
  if (event.by === "" || event.by.startsWith("/")) return null;
  if (event.event === "lying") {
    // A wildcard the owner ships (frozen, or code the change left alone) is theirs (./python-lying.ts).
    return {
      message: `during the ${label} run ${event.what} (${where}): a value that answers True to any comparison makes every assert that compares with it pass, so what the tests reported cannot be believed`,
      owner: context.frozen.has(event.by) || !context.changed.has(event.by),
    };
  }
  if (event.event === "planted") {
    return { message: `during the ${label} run tree code ${where} put its own code into ${event.what}, which is not the tree's (the standard library, the runner or an installed package): what the run reported cannot be believed`, owner };
  }
  if (event.event === "report") {
    return { message: `tree code ${where} ${event.what} during the ${label} run: the report is the runner's to write`, owner };
  }
  const what = event.event === event.what ? event.event : `${event.event} ${event.what}`;
  return { message: `tree code ${where} used ${what} while the ${label} tests ran (tampering: frames, the collector, ctypes or the runner's classes)`, owner };
}

/**
 * The PR's own runs (head+new), whose green the PR's new tests are read from: a value of code the
 * change wrote that says it equals anything makes that green nothing (./python-lying.ts). A wildcard
 * the new test files define themselves is the tests' own, for a reviewer.
 */
export function lyingProblems(run: SuiteRun, context: ProvenanceContext, newTestFiles: ReadonlySet<string>): string[] {
  return (run.provenance?.record.events ?? [])
    .filter((e) => e.event === "lying" && context.changed.has(e.by) && !context.frozen.has(e.by) && !newTestFiles.has(e.by))
    .map((e) => `during the ${run.label} run ${e.what} (${e.by}${e.line > 0 ? `:${e.line}` : ""}): a value that answers True to any comparison makes every assert that compares with it pass`);
}

function cutShort(run: SuiteRun, provenance: RunProvenance): string | null {
  const last = run.command;
  // A run that timed out, was killed or broke a rule fails for that already; its record ends anyhow.
  if (last === null || last.timedOut || last.signal !== null || last.violation !== null || run.report === null) return null;
  for (const lang of provenance.placed) {
    const first = provenance.record.processes.find((p) => p.lang === lang);
    if (first === undefined) {
      return `the ${run.label} run left no provenance record from ${lang === "python" ? "Python" : "Node"}, though the gate's hook was placed for it (a module of the tree named like the hook, or a runtime started without it)`;
    }
    if (!first.ended) {
      return `the ${run.label} run's provenance record was cut short: the ${lang === "python" ? "Python" : "Node"} process that ran first (${first.argv}) never reported its end`;
    }
  }
  return null;
}

/** One line for the run's facts: how much the record saw. */
export function provenanceLine(provenance: RunProvenance | undefined): string | undefined {
  if (provenance === undefined || provenance.placed.length === 0) return undefined;
  const r = provenance.record;
  const parts = [
    `${r.processes.length} ${r.processes.length === 1 ? "process" : "processes"}`,
    `${r.code.length} tree ${r.code.length === 1 ? "file" : "files"} ran`,
  ];
  const compiled = r.code.filter((c) => c.kind !== "source").length;
  if (compiled > 0) parts.push(`${compiled} compiled`);
  if (r.metadata.length > 0) parts.push(`${r.metadata.length} metadata read`);
  parts.push(`${r.events.length} ${r.events.length === 1 ? "event" : "events"}`);
  if (r.dropped > 0) parts.push(`${r.dropped} lines not kept`);
  return `provenance: ${parts.join(", ")}`;
}
