import { describe, expect, it } from "vitest";
import { provenanceFindings, provenanceLine, uncheckedHashPyc } from "../../../src/measure/provenance/judge.js";
import { parseRecord } from "../../../src/measure/provenance/record.js";
import type { SuiteRun } from "../../../src/measure/report-types.js";

// The pure half of issue 19's provenance record: lines as the hooks write them, parsed and judged.

const line = (entry: Record<string, unknown>): string => JSON.stringify(entry);
const START = line({ k: "start", pid: 7, lang: "python", nonce: "n1", ppid: 1, argv: "python3 -m pytest" });
const END = line({ k: "end", pid: 7, nonce: "n1" });

function runWith(lines: string[], placed: ("python" | "node")[] = ["python"]): SuiteRun {
  const record = parseRecord(lines.join("\n"), "/work");
  return {
    label: "head", setup: null, report: { cases: [], digest: "sha256:x", duplicates: [], loadErrors: [], notes: [] }, reportError: null,
    command: { exitCode: 0, signal: null, timedOut: false, durationMs: 1, outputTail: "", outputBytes: 0, outputTruncated: false, peakMemoryBytes: null, cpuMs: null, violation: null },
    provenance: { placed, notes: [], record },
  };
}

const none = { changed: new Set<string>(), frozen: new Set<string>() };

describe("parseRecord", () => {
  it("keeps paths relative to the tree, each once, and counts what it cannot read", () => {
    const record = parseRecord([
      START, line({ k: "code", pid: 7, p: "/work/src/a.py", kind: "source", shadow: "" }), line({ k: "code", pid: 7, p: "/work/src/a.py", kind: "source" }),
      "not json", line({ k: "meta", pid: 7, p: "/work/src/x.dist-info/entry_points.txt" }), END,
    ].join("\n"), "/work");
    expect(record.code).toEqual([{ path: "src/a.py", kind: "source" }]);
    expect(record.metadata).toEqual(["src/x.dist-info/entry_points.txt"]);
    expect(record.processes).toEqual([{ pid: 7, ppid: 1, lang: "python", argv: "python3 -m pytest", ended: true }]);
    expect(record.dropped).toBe(1);
  });

  it("an end line without the process's nonce (written by code under test) does not end it", () => {
    const record = parseRecord([START, line({ k: "end", pid: 7, nonce: "forged" })].join("\n"), "/work");
    expect(record.processes[0]?.ended).toBe(false);
    expect(record.dropped).toBe(1);
  });
});

describe("provenanceFindings", () => {
  it("an honest record: nothing to say", () => {
    const run = runWith([START, line({ k: "code", pid: 7, p: "/work/src/a.py", kind: "source", shadow: "" }), END]);
    expect(provenanceFindings(run, { ...none, changed: new Set(["src/a.py"]) }).problems).toEqual([]);
    expect(provenanceLine(run.provenance)).toBe("provenance: 1 process, 1 tree file ran, 0 events");
  });

  it("a standard library module loaded from a file of the change fails; the base's own is listed only", () => {
    const run = runWith([START, line({ k: "code", pid: 7, p: "/work/src/statistics.py", kind: "source", shadow: "stdlib:statistics" }), END]);
    expect(provenanceFindings(run, { ...none, changed: new Set(["src/statistics.py"]) }).problems[0]).toContain("the standard library's module statistics from the tree: src/statistics.py");
    const asOnBase = provenanceFindings(run, none);
    expect(asOnBase.problems).toEqual([]);
    expect(asOnBase.details[0]?.message).toContain("(as on the base)");
  });

  it("a module named like an installed distribution fails when the change brings it, not when the repository already has it", () => {
    const run = runWith([START, line({ k: "code", pid: 7, p: "/work/src/idna/core.py", kind: "source", shadow: "installed:idna:/usr/lib/python3/dist-packages" }), END]);
    const changed = new Set(["src/idna/core.py"]);
    expect(provenanceFindings(run, { ...none, changed }).problems[0]).toContain("idna, a module of the installed distribution in /usr/lib/python3/dist-packages");
    expect(provenanceFindings(run, { ...none, changed, baseFiles: new Set(["src/idna/__init__.py"]) }).problems).toEqual([]);
  });

  it("an unchecked-hash pyc fails wherever it came from; committed bytecode and metadata fail when the change holds them", () => {
    expect(uncheckedHashPyc(1)).toBe(true);
    expect(uncheckedHashPyc(3)).toBe(false);
    expect(uncheckedHashPyc(0)).toBe(false);
    const run = runWith([START,
      line({ k: "code", pid: 7, p: "/work/src/__pycache__/a.cpython-311.pyc", kind: "bytecode", shadow: "", flags: 1 }),
      line({ k: "code", pid: 7, p: "/work/src/__pycache__/b.cpython-311.pyc", kind: "bytecode", shadow: "", flags: 0 }),
      line({ k: "code", pid: 7, p: "/work/src/c.so", kind: "native", shadow: "" }),
      line({ k: "meta", pid: 7, p: "/work/src/p-1.dist-info/entry_points.txt" }), END]);
    const found = provenanceFindings(run, none).problems.join("\n");
    expect(found).toContain("src/__pycache__/a.cpython-311.pyc");
    expect(found).not.toContain("b.cpython-311.pyc");
    const committed = provenanceFindings(run, { ...none, changed: new Set(["src/__pycache__/b.cpython-311.pyc", "src/c.so", "src/p-1.dist-info/entry_points.txt"]) }).problems.join("\n");
    for (const path of ["b.cpython-311.pyc", "src/c.so", "entry_points.txt"]) expect(committed).toContain(path);
  });

  it("tampering from the change's code fails; from the owner's frozen tests it is listed; a replaced assertion fails", () => {
    const run = runWith([START,
      line({ k: "tamper", pid: 7, ev: "sys._getframe", what: "sys._getframe", by: "/work/src/a.py", line: 3 }),
      line({ k: "tamper", pid: 7, ev: "gc.get_referrers", what: "gc.get_referrers", by: "/work/tests/test_leak.py", line: 9 }),
      line({ k: "tamper", pid: 7, ev: "replaced", what: "unittest.case.TestCase.assertEqual", by: "/work/src/a.py", line: 0 }), END]);
    const { problems, details } = provenanceFindings(run, { changed: new Set(["src/a.py"]), frozen: new Set(["tests/test_leak.py"]) });
    expect(problems.join("\n")).toContain("src/a.py:3 used sys._getframe");
    expect(problems.join("\n")).toContain("unittest.case.TestCase.assertEqual was replaced (by src/a.py)");
    expect(problems.join("\n")).not.toContain("test_leak");
    expect(details.map((d) => d.message).join("\n")).toContain("tests/test_leak.py:9");
  });

  // Found on frostming/marko (issue 22): pytest from the repository's pdm.lock lives in .venv, which
  // the once-only setup made; formatting a failing canary's traceback reads tb_frame there, and every
  // honest head FAILed unsafe. A module named .venv the change commits itself is still its code.
  it("code under an entry the setup created (.venv) is installed code; the same path committed by the change is not", () => {
    const lines = [START,
      line({ k: "code", pid: 7, p: "/work/.venv/lib/python3.11/site-packages/_pytest/_code/code.py", kind: "source", shadow: "runner:_pytest" }),
      line({ k: "tamper", pid: 7, ev: "object.__getattr__", what: "tb_frame", by: "/work/.venv/lib/python3.11/site-packages/_pytest/_code/code.py", line: 255 }),
      line({ k: "tamper", pid: 7, ev: "sys._getframe", what: "sys._getframe", by: "/work/src/a.py", line: 3 }), END];
    const run = { ...runWith(lines), deps: { key: "k", hit: true, setupMs: null, entries: [".venv"] } };
    const { problems, details } = provenanceFindings(run, { ...none, changed: new Set(["src/a.py"]) });
    expect(problems).toEqual(["tree code src/a.py:3 used sys._getframe while the head tests ran (tampering: frames, the collector, ctypes or the runner's classes)"]);
    expect(details.map((d) => d.message).join("\n")).not.toContain(".venv");
    // Without the setup's entries (no setup, or the change committed that file), it is tree code.
    expect(provenanceFindings(runWith(lines), none).problems.join("\n")).toContain(".venv/lib/python3.11/site-packages/_pytest/_code/code.py:255 used object.__getattr__ tb_frame");
    const committed = provenanceFindings(run, { ...none, changed: new Set([".venv/lib/python3.11/site-packages/_pytest/_code/code.py"]) });
    expect(committed.problems.join("\n")).toContain("used object.__getattr__ tb_frame");
  });

  it("the tree's code planted in a module, or the report written by tree code, fails; the owner's frozen test doing it is listed", () => {
    const run = runWith([START,
      line({ k: "tamper", pid: 7, ev: "planted", what: "statistics.median", by: "/work/src/a.py", line: 0 }),
      line({ k: "tamper", pid: 7, ev: "report", what: "wrote the test report (os.rename)", by: "/work/src/a.py", line: 9 }),
      line({ k: "tamper", pid: 7, ev: "planted", what: "random.random", by: "/work/tests/test_a.py", line: 0 }), END]);
    const { problems, details } = provenanceFindings(run, { ...none, changed: new Set(["src/a.py"]), frozen: new Set(["tests/test_a.py"]) });
    expect(problems).toEqual([
      "during the head run tree code src/a.py put its own code into statistics.median, which is not the tree's (the standard library, the runner or an installed package): what the run reported cannot be believed",
      "tree code src/a.py:9 wrote the test report (os.rename) during the head run: the report is the runner's to write",
    ]);
    expect(details.map((d) => d.message)).toContain("during the head run tree code tests/test_a.py put its own code into random.random, which is not the tree's (the standard library, the runner or an installed package): what the run reported cannot be believed");
  });

  it("a hook that was placed but left no record, or a first process that never ended, fails", () => {
    expect(provenanceFindings(runWith([]), none).problems[0]).toContain("left no provenance record from Python");
    expect(provenanceFindings(runWith([START]), none).problems[0]).toContain("was cut short");
    // A run that timed out fails for that already.
    const timedOut = runWith([START]);
    expect(provenanceFindings({ ...timedOut, command: { ...timedOut.command!, timedOut: true } }, none).problems).toEqual([]);
  });
});

describe("the third red team (issue 19): swapped slots, and node:test's report channel", () => {
  const swap = (what: string): string => line({ k: "tamper", pid: 7, ev: "swapped", what, by: "", line: 0 });

  it("a slot swapped for another object that is not the tree's fails, unless the base run's record shows the same swap", () => {
    const oracle = "statistics.median (was statistics.median, now builtins.callable)";
    const runner = "_pytest.assertion.util._reprcompare (was nothing, now _pytest.assertion.callbinrepr)";
    const head = runWith([START, swap(oracle), swap(runner), END]);
    const base: SuiteRun = { ...runWith([START, swap(runner), END]), label: "base" };
    const { problems, details } = provenanceFindings(head, none, base);
    expect(problems).toEqual([`during the head run ${oracle} was replaced, which the base run did not do: a function or class that tests rely on (an oracle, the assertion library, the runner) is not the one its module defined`]);
    expect(details.map((d) => d.message)).toContain(`during the head run ${runner} (as on the base)`);
    // The same slot swapped to something else than on the base is the change's.
    const other = runWith([START, swap("_pytest.assertion.util._reprcompare (was nothing, now builtins.print)"), END]);
    expect(provenanceFindings(other, none, base).problems).toHaveLength(1);
    // No base run to compare with: blamed.
    expect(provenanceFindings(head, none).problems).toHaveLength(2);
  });

  it("a slot swapped while a test ran (put back before exit) fails, unless the base run's record shows the same", () => {
    const between = (what: string): string => line({ k: "tamper", pid: 7, ev: "between", what, by: "", line: 0 });
    const oracle = "statistics.median (was statistics.median, now builtins.callable) while tests/test_median.py::TestMedian::test_median ran";
    const frozenTests = "json.dumps (was json.dumps, now builtins.repr) while tests/test_json.py::test_dump ran";
    const head = runWith([START, between(oracle), between(frozenTests), END]);
    const base: SuiteRun = { ...runWith([START, between(frozenTests), END]), label: "base" };
    const { problems, details } = provenanceFindings(head, none, base);
    expect(problems).toEqual([`during the head run ${oracle}, which the base run did not do: a function or class that tests rely on was swapped while the tests ran (and put back before the process ended)`]);
    expect(details.map((d) => d.message)).toContain(`during the head run ${frozenTests} (as on the base)`);
    expect(provenanceFindings(head, none).problems).toHaveLength(2);
    const byHand = runWith([START, line({ k: "tamper", pid: 7, ev: "unloaded", what: "sys.modules[statistics] (module statistics)", by: "", line: 0 }), END]);
    expect(provenanceFindings(byHand, none, base).problems[0]).toContain("sys.modules[statistics] (module statistics) was put into sys.modules under a name of the standard library or the runner without the import system loading it");
  });

  const CHILD = line({ k: "start", pid: 9, lang: "node", nonce: "c9", ppid: 8, argv: "node test/median.test.js", tf: "/work/test/median.test.js" });
  const PARENT = line({ k: "start", pid: 8, lang: "node", nonce: "p8", ppid: 1, argv: "node --test" });
  const ends = [line({ k: "end", pid: 9, nonce: "c9" }), line({ k: "end", pid: 8, nonce: "p8" })];
  const passed = (name: string, file: string | null = "test/median.test.js") => ({ id: `${file ?? "test"}::${name}`, file, name, result: "passed" as const });

  function nodeRun(lines: string[], cases: ReturnType<typeof passed>[]): SuiteRun {
    const run = runWith(lines, ["node"]);
    return { ...run, report: { ...run.report!, cases } };
  }

  it("parses what a node:test child passed, only under its nonce", () => {
    const record = parseRecord([CHILD, line({ k: "ran", pid: 9, nonce: "forged", n: ["median"], done: true }), line({ k: "ran", pid: 9, nonce: "c9", n: ["mean"] }),
      line({ k: "ran", pid: 9, nonce: "c9", n: ["odd"], done: true }), ...ends].join("\n"), "/work");
    expect(record.processes[0]).toMatchObject({ testFile: "test/median.test.js", passed: ["mean", "odd"], ranDone: true, ended: true });
  });

  it("a pass the file's node:test process never serialized, or a process that never ended, is not believed", () => {
    const honest = nodeRun([PARENT, CHILD, line({ k: "ran", pid: 9, nonce: "c9", n: ["median of odd lists"], done: true }), ...ends], [passed("median of odd lists")]);
    expect(provenanceFindings(honest, none).problems).toEqual([]);
    const forged = nodeRun([PARENT, CHILD, line({ k: "ran", pid: 9, nonce: "c9", n: [], done: true }), ...ends], [passed("median of odd lists")]);
    expect(provenanceFindings(forged, none).problems).toEqual([
      "the head report says test/median.test.js::median of odd lists passed, but the node:test process of test/median.test.js never reported it passing through node:test's own reporter: something else wrote the report channel, so the run is not believed",
    ]);
    const killed = nodeRun([PARENT, CHILD, ends[1]!], [passed("median of odd lists")]);
    expect(provenanceFindings(killed, none).problems[0]).toContain("never reported its end");
    // Node's own junit reporter names no file: held to every child's passes.
    const fileless = nodeRun([PARENT, CHILD, line({ k: "ran", pid: 9, nonce: "c9", n: ["a"], done: true }), ...ends], [passed("a", null), passed("b", null)]);
    expect(provenanceFindings(fileless, none).problems[0]).toContain("the head report says test::b passed, but node:test's child processes never reported it passing");
    // A file no child of the record ran (a command without the preload) is not held to anything.
    expect(provenanceFindings(nodeRun([PARENT, ends[1]!], [passed("x")]), none).problems).toEqual([]);
  });
});
