// Reads `go test -json` (test2json events, one JSON object a line) into a TestReport. Ids are
// `<package import path>/<TestName>[/<subtest>...]`, as `go test -run` names them; each test's file
// is the `_test.go` file of its package folder that declares its top-level function (else the
// folder). A package that failed to build, or whose test binary died (a panic, a timeout), is a load
// error of its test files, with the first line of why.
import { readdirSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { CaseResult, LoadErrorMessage, TestCaseResult, TestReport } from "../measure/report-types.js";
import { readTreeFile } from "./tree-read.js";

interface GoEvent {
  Action?: string;
  Package?: string;
  Test?: string;
  Output?: string;
  ImportPath?: string;
  FailedBuild?: string;
}

interface PackageState {
  tests: Map<string, { result: CaseResult | "running"; output: string[] }>;
  output: string[];
  failed: boolean;
  buildFailed: boolean;
}

/** Whether the text is test2json output: its first line is an event object. */
export function claimsGoJson(text: string): boolean {
  const first = text.split("\n").find((line) => line.trim() !== "")?.trim() ?? "";
  if (!first.startsWith("{")) return false;
  try {
    const event = JSON.parse(first) as GoEvent;
    return typeof event.Action === "string" && (typeof event.Package === "string" || typeof event.ImportPath === "string");
  } catch {
    return false;
  }
}

/** `module example.com/x` from the tree's go.mod; null without one. */
export function modulePath(treeDir: string): string | null {
  const text = readTreeFile(treeDir, "go.mod");
  return text === null ? null : /^\s*module\s+"?([^\s"]+)"?/m.exec(text)?.[1] ?? null;
}

/** The folder of a package in the tree (`` for the module's root), or null when it is not the module's. */
export function packageFolder(pkg: string, module: string | null): string | null {
  if (module === null) return null;
  if (pkg === module) return "";
  return pkg.startsWith(`${module}/`) ? pkg.slice(module.length + 1) : null;
}

/** The first line of a crash that ends a test binary. */
const FATAL = /^(?:panic:|fatal error:)/;

const NOISE = /^(?:=== (?:RUN|PAUSE|CONT|NAME)|--- (?:PASS|FAIL|SKIP)|PASS$|FAIL$|ok\s|FAIL\s)/;

function firstLine(lines: readonly string[], prefer?: RegExp): string | undefined {
  const meaningful = lines.map((l) => l.trim()).filter((l) => l !== "" && !NOISE.test(l) && !l.startsWith("#"));
  const line = (prefer === undefined ? undefined : meaningful.find((l) => prefer.test(l))) ?? meaningful[0];
  return line === undefined ? undefined : line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

export function parseGoJson(text: string, treeDir: string): TestReport {
  const packages = new Map<string, PackageState>();
  const buildOutput = new Map<string, string[]>();
  const notes = new Set<string>();
  const state = (pkg: string): PackageState => {
    let found = packages.get(pkg);
    if (found === undefined) {
      found = { tests: new Map(), output: [], failed: false, buildFailed: false };
      packages.set(pkg, found);
    }
    return found;
  };
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let event: GoEvent;
    try {
      event = JSON.parse(line) as GoEvent;
    } catch {
      skipped++;
      continue;
    }
    if (typeof event !== "object" || event === null || typeof event.Action !== "string") continue;
    // Build events (Go 1.24+) name the package as `pkg [pkg.test]`.
    if (event.ImportPath !== undefined && event.Package === undefined) {
      const pkg = event.ImportPath.split(" ")[0] ?? event.ImportPath;
      const lines = buildOutput.get(pkg) ?? [];
      if (event.Action === "build-output" && event.Output !== undefined) lines.push(event.Output);
      buildOutput.set(pkg, lines);
      if (event.Action === "build-fail") state(pkg).buildFailed = true;
      continue;
    }
    if (event.Package === undefined) continue;
    const pkg = state(event.Package);
    if (event.Test === undefined) {
      if (event.Output !== undefined) pkg.output.push(event.Output);
      if (event.Action === "fail") {
        pkg.failed = true;
        if (event.FailedBuild !== undefined) pkg.buildFailed = true;
      }
      continue;
    }
    let test = pkg.tests.get(event.Test);
    if (test === undefined) {
      test = { result: "running", output: [] };
      pkg.tests.set(event.Test, test);
    }
    if (event.Action === "output" && event.Output !== undefined) test.output.push(event.Output);
    else if (event.Action === "pass") test.result = "passed";
    else if (event.Action === "fail") test.result = "failed";
    else if (event.Action === "skip") test.result = "skipped";
  }
  if (skipped > 0) notes.add(`${skipped} line(s) of the report were not JSON events and were ignored`);

  const module = modulePath(treeDir);
  const files = new TestFiles(treeDir);
  const cases: TestCaseResult[] = [];
  const loadErrors = new Map<string, string | undefined>();
  for (const [pkg, st] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const folder = packageFolder(pkg, module);
    if (folder === null) notes.add(`package ${pkg} is not in the module of go.mod at the tree's root; its tests name no file`);
    const testFiles = folder === null ? [] : files.of(folder);
    const loadFailed = (why: string | undefined, only?: string): void => {
      const named = only !== undefined ? [only] : testFiles.length > 0 ? testFiles : [folder === null ? pkg : folder === "" ? "." : folder];
      for (const file of named) if (!loadErrors.has(file)) loadErrors.set(file, why);
    };
    if (st.buildFailed) {
      loadFailed(firstLine(buildOutput.get(pkg) ?? st.output) ?? "the package's tests did not build");
      continue;
    }
    let panicked: { test: string; line: string | undefined } | null = null;
    for (const [name, test] of st.tests) {
      const top = name.split("/")[0] ?? name;
      const file = folder === null ? null : files.declaring(folder, top);
      const result: CaseResult = test.result === "running" ? "errored" : test.result;
      const message = test.result === "running" ? "did not finish: the test binary ended first (a panic, os.Exit or a timeout)"
        : result === "failed" || result === "skipped" ? firstLine(test.output, /panic:/) : undefined;
      if (test.output.some((l) => l.startsWith("panic:"))) {
        panicked ??= { test: top, line: firstLine(test.output, /^panic:/) };
        loadFailed(firstLine(test.output, /^panic:/), file ?? undefined);
      }
      cases.push({ id: `${pkg}/${name}`, file, name, result, ...(message === undefined ? {} : { message }) });
    }
    // A panic ends the package's test binary: the tests after it never ran. Their files failed to
    // load as much as the panicking test's did (spf13/cast: a target in time_test.go, after a test
    // of basic_test.go that panicked on the base, was "absent" there, not red, and no task could
    // name it). A file whose every test ran keeps its outcomes alone.
    // The binary also ends with tests unfinished on a fatal error (cast: "fatal error: stack
    // overflow"), an os.Exit or a timeout.
    const unfinished = [...st.tests].filter(([, t]) => t.result === "running");
    const fatal = unfinished.find(([, t]) => t.output.some((l) => FATAL.test(l))) ?? unfinished[0];
    const ended = panicked ?? (fatal === undefined ? null : { test: fatal[0].split("/")[0] ?? fatal[0], line: firstLine(fatal[1].output, FATAL) });
    if (ended !== null && folder !== null) {
      const why = `did not run: the package's test binary ended first, in ${ended.test}${ended.line === undefined ? "" : ` (${ended.line})`}`;
      for (const [test, file] of files.tests(folder)) if (!st.tests.has(test)) loadFailed(why, file);
    }
    // The binary failed with no test failing (TestMain, an init panic, a timeout outside a test):
    // whatever it did not run is not there to compare.
    const anyFailed = [...st.tests.values()].some((t) => t.result === "failed" || t.result === "running");
    if (st.failed && !anyFailed && panicked === null) loadFailed(firstLine(st.output, /panic:|exit status/) ?? "the test binary failed outside any test");
    if (st.failed && st.output.some((l) => l.startsWith("panic:")) && panicked === null) loadFailed(firstLine(st.output, /^panic:/));
  }
  const messages: LoadErrorMessage[] = [...loadErrors].filter((e): e is [string, string] => e[1] !== undefined)
    .sort(([a], [b]) => a.localeCompare(b)).map(([file, message]) => ({ file, message }));
  return {
    cases,
    digest: `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`,
    // go test names are unique per package: test2json reports each once.
    duplicates: [],
    loadErrors: [...loadErrors.keys()].sort(),
    ...(messages.length > 0 ? { loadErrorMessages: messages } : {}),
    notes: [...notes],
  };
}

/** The `_test.go` files of a package folder and the Test functions each declares (read once). */
class TestFiles {
  private readonly byFolder = new Map<string, Map<string, string>>();
  private readonly lists = new Map<string, string[]>();

  constructor(private readonly treeDir: string) {}

  of(folder: string): string[] {
    let list = this.lists.get(folder);
    if (list === undefined) {
      try {
        list = readdirSync(join(this.treeDir, folder), { withFileTypes: true })
          .filter((e) => e.isFile() && e.name.endsWith("_test.go")).map((e) => (folder === "" ? e.name : `${folder}/${e.name}`)).sort();
      } catch {
        list = [];
      }
      this.lists.set(folder, list);
    }
    return list;
  }

  /** The top-level tests (`func TestX(t *testing.T)`) of a package folder, each with its file. */
  tests(folder: string): Map<string, string> {
    const found = new Map<string, string>();
    for (const file of this.of(folder)) {
      const text = readTreeFile(this.treeDir, file) ?? "";
      for (const match of text.matchAll(/^func\s+(Test(?:[^a-z\W]\w*)?)\s*\(\s*\w+\s+\*testing\.T\s*\)/gm)) {
        if (match[1] !== undefined && !found.has(match[1])) found.set(match[1], file);
      }
    }
    return found;
  }

  declaring(folder: string, test: string): string | null {
    let names = this.byFolder.get(folder);
    if (names === undefined) {
      names = new Map();
      for (const file of this.of(folder)) {
        const text = readTreeFile(this.treeDir, file);
        if (text === null) continue;
        for (const match of text.matchAll(/^func\s+(\w+)\s*\(/gm)) if (match[1] !== undefined && !names.has(match[1])) names.set(match[1], file);
      }
      this.byFolder.set(folder, names);
    }
    return names.get(test) ?? null;
  }
}
