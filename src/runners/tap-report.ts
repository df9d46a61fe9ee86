// Reads the TAP 14 document the gate's launcher writes (reporters/tap-run.cjs: one top-level subtest
// per test file, the runner's own TAP 13/14 nested inside) into a TestReport, with tap-parser. TAP
// names no file; the launcher runs one file at a time, so a test's file is the subtest it sits in.
//
// What a test is depends on the runner (its dialect):
// - tape: a `# name` comment opens a test, the points after it are its assertions (a failing one
//   fails the test; `# SKIP name` is a skipped test). tape prints nesting flat: a subtest's id is its
//   own name.
// - ava, node --test: every point is a test; nested subtests are joined with `::`, as node:test's
//   JUnit suites are (`test/x.test.js::outer::inner`).
// - node-tap: a subtest is a test, the points inside it its assertions; a point outside any subtest
//   is an assertion of the file's `(top level)` test.
// In a selected run (the launcher's `# ranex select:` line) the tests the runner skipped for the
// launcher's name filter did not run, and are no tests of the run: a selected test the filter missed
// is then absent, which the gate never reads as the selection's outcome (src/measure/select.ts).
// A file is a load error, never a pass, when its run exited non-zero with no test failing, when it
// has no plan or ran a number of points other than planned, when it bailed out, or when the runner
// reported a crash (ava's uncaught errors, node's and node-tap's failed processes).
import { createHash } from "node:crypto";
import { Parser } from "tap-parser";
import type { ResolveFile } from "../measure/junit-paths.js";
import type { CaseResult, LoadErrorMessage, TestCaseResult, TestReport } from "../measure/report-types.js";

export type TapDialect = "tape" | "ava" | "node-test" | "tap";

const HEADER = /^TAP version 14\n# ranex tap-run: (tape|ava|node-test|tap)\n/;

/** Whether the text is TAP: the launcher's document, or bare TAP (refused by parseTap: it names no file). */
export function claimsTap(text: string): boolean {
  return HEADER.test(text) || /^(?:TAP version 1[34]|1\.\.\d+|(?:not )?ok\b)/.test(text.trimStart());
}

interface Point {
  ok: boolean;
  name: string;
  skip: boolean | string;
  todo: boolean | string;
  diag: Record<string, unknown> | null;
}

type Event = [string, unknown];

interface Complete {
  ok: boolean;
  count: number;
  plan: { start: number | null; end: number | null };
  bailout: string | false;
  failures: { tapError?: string | null }[];
}

interface FileRead {
  cases: TestCaseResult[];
  /** Why the file is a load error, or null. */
  error: string | null;
}

const oneLine = (text: string): string => {
  const line = text.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
};

function messageOf(point: Point): string | undefined {
  const d = point.diag ?? {};
  for (const key of ["message", "error", "stderr"]) {
    const value = d[key];
    if (typeof value === "string" && value.trim() !== "") return oneLine(value);
  }
  if (typeof d.assertion === "string") return `${d.assertion} failed`; // ava
  if (d.expected !== undefined || d.actual !== undefined) return `expected ${JSON.stringify(d.expected)}, got ${JSON.stringify(d.actual)}`;
  return point.name === "" ? undefined : oneLine(point.name);
}

function resultOf(point: Point): { result: CaseResult; message?: string } {
  if (point.todo !== false) return { result: "skipped", message: `todo${typeof point.todo === "string" && point.todo !== "" ? `: ${point.todo}` : ""}` };
  if (point.skip !== false) return { result: "skipped", ...(typeof point.skip === "string" && point.skip !== "" ? { message: point.skip } : {}) };
  if (point.ok) return { result: "passed" };
  const message = messageOf(point);
  return { result: "failed", ...(message === undefined ? {} : { message }) };
}

/** Whether a failing point is the runner saying a process or file crashed, not a test failing. */
function isCrash(point: Point, dialect: TapDialect): boolean {
  if (point.ok || point.todo !== false || point.skip !== false) return false;
  // node --test's and node-tap's failed processes, node-tap's timeout.
  if (point.diag !== null && ("exitCode" in point.diag || "expired" in point.diag)) return true;
  // ava's crashes (src: lib/reporters/tap.js writeCrash) carry no assertion and are titled by the error.
  return dialect === "ava" && (point.diag === null || !("assertion" in point.diag))
    && /^(?:[\w.]*(?:Error|Exception)\b|Uncaught exception|Unhandled rejection|No tests found in |.+ exited (?:with a non-zero exit code|due to ))/.test(point.name);
}

/** A subtest's events paired with the point that closes it: tap-parser emits the child, then the point. */
function steps(events: readonly Event[]): { point: Point; child: Event[] | null }[] {
  const out: { point: Point; child: Event[] | null }[] = [];
  let child: Event[] | null = null;
  for (const [kind, value] of events) {
    if (kind === "child") child = value as Event[];
    else if (kind === "assert") {
      out.push({ point: value as Point, child });
      child = null;
    }
  }
  return out;
}

/** Why a TAP stream is broken (a bail out, no plan, a count other than the plan), or null. */
function streamError(events: readonly Event[]): string | null {
  const bail = events.find(([k, v]) => k === "bailout" || (k === "comment" && String(v).startsWith("# ranex: Bail out!")));
  if (bail !== undefined) return `bailed out: ${oneLine(String(bail[1]).replace(/^# ranex: Bail out!\s*/, "")) || "no reason given"}`;
  const complete = events.find(([k]) => k === "complete")?.[1] as Complete | undefined;
  if (complete === undefined) return "the TAP output ended early";
  if (complete.bailout !== false) return `bailed out: ${complete.bailout}`;
  if (complete.plan.end === null) return "the TAP output has no plan (the run ended before it finished)";
  const broken = complete.failures.map((f) => f.tapError).find((e): e is string => typeof e === "string" && e !== "");
  return broken === undefined ? null : `the TAP output breaks its plan (${broken}: ${complete.count} points, plan 1..${complete.plan.end})`;
}

/** Cases where every point is a test (ava, node --test) or every subtest is one (node-tap); crashes apart. */
/**
 * Whether the runner skipped a point for the launcher's name filter (a selected run): not run, so no
 * test of the run. node --test says `test name does not match pattern`, node-tap `filter: /…/`; ava
 * and tape print nothing for what they leave out.
 */
function filteredOut(point: Point, dialect: TapDialect): boolean {
  if (typeof point.skip !== "string") return false;
  return dialect === "node-test" ? point.skip === "test name does not match pattern" : dialect === "tap" && point.skip.startsWith("filter: /");
}

/** Whether every point of a subtest was left out by the name filter (a suite whose tests were not selected). */
function allFilteredOut(events: readonly Event[], dialect: TapDialect): boolean {
  const all = steps(events);
  return all.length > 0 && all.every(({ point, child }) => filteredOut(point, dialect) || (child !== null && allFilteredOut(child, dialect)));
}

interface TreeRead {
  dialect: TapDialect;
  /** What the runner reported as crashes, filled in. */
  crashes: string[];
  /** A selected run (`# ranex select:`): what the name filter skipped is left out. */
  selecting: boolean;
}

function treeCases(events: readonly Event[], read: TreeRead, path: string[]): TestCaseResult[] {
  const { dialect, crashes } = read;
  const cases: TestCaseResult[] = [];
  let looseFailed: Point | null = null;
  let loose = 0;
  for (const { point, child } of steps(events)) {
    if (isCrash(point, dialect)) {
      crashes.push(messageOf(point) ?? point.name);
      continue;
    }
    if (read.selecting && (filteredOut(point, dialect) || (child !== null && point.ok && allFilteredOut(child, dialect)))) continue;
    const name = point.name.trim() === "" ? "(unnamed)" : point.name.trim();
    const inner = child === null ? [] : treeCases(child, read, [...path, name]);
    if (dialect === "tap" && child === null && point.skip === false && point.todo === false) {
      loose += 1; // node-tap: an assertion of the enclosing test
      if (!point.ok) looseFailed ??= point;
      continue;
    }
    cases.push(...inner);
    const leaf = inner.length === 0;
    // A parent is a test of its own only when it failed and none of its tests did (a hook, its own code).
    if (leaf || (!point.ok && point.todo === false && !inner.some((c) => c.result === "failed"))) {
      const own = resultOf(point);
      // node-tap: a failed subtest says why through its first failing assertion.
      const why = dialect === "tap" && own.result === "failed" && child !== null ? steps(child).find((s) => !s.point.ok && s.point.todo === false)?.point : undefined;
      const message = why === undefined ? undefined : messageOf(why);
      cases.push({ id: "", file: null, name: [...path, name].join("::"), ...own, ...(message === undefined ? {} : { message }) });
    }
  }
  if (dialect === "tap" && path.length === 0 && loose > 0) {
    cases.push({ id: "", file: null, name: "(top level)", ...(looseFailed === null ? { result: "passed" as const } : resultOf(looseFailed)) });
  }
  return cases;
}

/** tape: `# name` comments open tests; the points after one are its assertions. */
function tapeCases(events: readonly Event[]): TestCaseResult[] {
  const cases: TestCaseResult[] = [];
  let current: TestCaseResult | null = null;
  for (const [kind, value] of events) {
    // tape's summary (# tests, # pass) follows its plan at the end; a plan first is just a plan.
    if (kind === "plan" && cases.length > 0) break;
    if (kind === "comment") {
      const text = String(value).replace(/^#\s?/, "").trim();
      if (text.startsWith("Subtest:") || text.startsWith("ranex:") || text === "") continue;
      const skip = /^SKIP\s+(.*)$/.exec(text);
      const todo = /^TODO\s+(.*)$/.exec(text);
      current = { id: "", file: null, name: skip?.[1] ?? todo?.[1] ?? text, result: skip !== null || todo !== null ? "skipped" : "passed", ...(todo !== null ? { message: "todo" } : {}) };
      cases.push(current);
    } else if (kind === "assert") {
      const point = value as Point;
      if (current === null) {
        current = { id: "", file: null, name: "(top level)", result: "passed" };
        cases.push(current);
      }
      if (!point.ok && point.todo === false && current.result !== "skipped" && current.result !== "failed") {
        current.result = "failed";
        const message = messageOf(point);
        if (message !== undefined) current.message = message;
      }
    }
  }
  return cases;
}

function readFile(file: string, top: Point, child: Event[] | null, dialect: TapDialect, selecting: boolean): FileRead {
  const events = child ?? [];
  const crashes: string[] = [];
  // node-tap wraps the file it ran in a subtest named after it: the tests are inside.
  const own = dialect === "tap" ? unwrap(events, file) : events;
  const cases = dialect === "tape" ? tapeCases(own) : treeCases(own, { dialect, crashes, selecting }, []);
  const failedTests = cases.some((c) => c.result === "failed");
  const exit = typeof top.diag?.exit === "string" ? top.diag.exit : null;
  const stderr = typeof top.diag?.stderr === "string" && top.diag.stderr !== "" ? top.diag.stderr : null;
  let error: string | null = null;
  // node --test prints a crashed file's stderr as comments: its error line says more than "test failed".
  const said = events.map(([k, v]) => (k === "comment" ? String(v).replace(/^#\s*/, "").trim() : "")).find((l) => /^(?:[\w.]*Error\b|Error \[)/.test(l));
  if (crashes.length > 0) error = stderr ?? said ?? crashes[0] ?? "the runner reported a crash";
  else if (child === null) error = `no TAP output${exit === null ? "" : ` (${exit})`}${stderr === null ? "" : `: ${stderr}`}`;
  else error = streamError(own === events ? events : own) ?? streamError(events);
  if (error === null && !top.ok && !failedTests) error = `the run failed with no test failing (${exit ?? "not ok"})${stderr === null ? "" : `: ${stderr}`}`;
  return { cases, error };
}

/** node-tap's own subtest for the file, when that is all its output holds. */
function unwrap(events: readonly Event[], file: string): Event[] {
  const all = steps(events);
  const only = all.length === 1 ? all[0] : undefined;
  return only !== undefined && only.child !== null && only.point.name === file ? only.child : [...events];
}

export function parseTap(text: string, resolve: ResolveFile): TestReport {
  const header = HEADER.exec(text);
  if (header === null) {
    throw new Error("bare TAP names no test file: run the runner through the gate's launcher, node \"$RANEX_REPORTERS/tap-run.cjs\" <runner> <files>");
  }
  const dialect = header[1] as TapDialect;
  // The launcher's own line (the top level is its alone: every line a runner prints is indented).
  const selecting = text.slice(header[0].length).startsWith("# ranex select: ");
  const events = Parser.parse(text) as Event[];
  const notes = new Set<string>();
  const byId = new Map<string, TestCaseResult>();
  const duplicates = new Set<string>();
  const loadErrors = new Map<string, string>();
  for (const { point, child } of steps(events)) {
    const file = point.name.trim();
    const inTree = resolve(file);
    if (!inTree) notes.add(`file ${file} named by the launcher is not in the tree`);
    const read = readFile(file, point, child, dialect, selecting);
    if (read.error !== null) loadErrors.set(file, read.error);
    for (const c of read.cases) {
      const id = `${file}::${c.name}`;
      const found: TestCaseResult = { ...c, id, file: inTree ? file : null };
      const earlier = byId.get(id);
      if (earlier === undefined) {
        byId.set(id, found);
        continue;
      }
      duplicates.add(id);
      const copies = [...earlier.copies ?? [{ result: earlier.result, ...(earlier.message === undefined ? {} : { message: earlier.message }) }],
        { result: found.result, ...(found.message === undefined ? {} : { message: found.message }) }];
      const worst = RANK[found.result] < RANK[earlier.result] ? found : earlier;
      byId.set(id, { ...worst, copies });
    }
  }
  const top = events.find(([k]) => k === "complete")?.[1] as Complete | undefined;
  if (top === undefined || top.plan.end === null) notes.add("the launcher's TAP document has no plan: the run ended before every file was run");
  const messages: LoadErrorMessage[] = [...loadErrors].sort(([a], [b]) => a.localeCompare(b)).map(([file, message]) => ({ file, message }));
  return {
    cases: [...byId.values()],
    digest: `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`,
    duplicates: [...duplicates].sort(),
    loadErrors: messages.map((m) => m.file),
    ...(messages.length > 0 ? { loadErrorMessages: messages } : {}),
    notes: [...notes],
  };
}

const RANK: Record<CaseResult, number> = { failed: 0, errored: 0, skipped: 1, passed: 2 };
