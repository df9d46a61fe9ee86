// The report held to what node:test's children really reported (./node-ran.ts), pure. A test the report
// says passed in a file run by a node:test child of the record must be among the tests that child's
// node:test serialized as passed; a child that never reported its end (process.reallyExit, a signal
// it sent itself) vouches for none. Written onto the report channel by anyone else, a pass was not run.
import type { TestCaseResult } from "../report-types.js";
import type { RecordedProcess } from "./record.js";

const NAMED = 5;

/** Problems, one per file, naming the passes node:test never reported. */
export function unreportedPasses(label: string, processes: readonly RecordedProcess[], cases: readonly TestCaseResult[]): string[] {
  const children = processes.filter((p) => p.testFile !== undefined);
  if (children.length === 0) return [];
  const byFile = new Map<string, RecordedProcess[]>();
  for (const child of children) byFile.set(child.testFile ?? "", [...byFile.get(child.testFile ?? "") ?? [], child]);
  const problems: string[] = [];
  // Node's own junit reporter names no file: the report's passes are then held to every child's.
  const fileless = cases.some((c) => c.file === null);
  const groups: [string | null, RecordedProcess[]][] = fileless ? [[null, children]] : [...byFile];
  for (const [file, mine] of groups) {
    if (mine.some((p) => p.ranCut === true)) continue;
    const passed = cases.filter((c) => c.result === "passed" && (file === null ? c.file === null : c.file === file));
    if (passed.length === 0) continue;
    const real = new Set(mine.flatMap((p) => (p.ended && p.ranDone === true ? p.passed ?? [] : [])));
    const unproven = passed.filter((c) => !real.has(c.name.slice(0, 500)) && !c.name.includes("&#"));
    if (unproven.length === 0) continue;
    const where = file === null ? "node:test's child processes" : `the node:test process of ${file}`;
    const cut = mine.filter((p) => !p.ended || p.ranDone !== true);
    const why = cut.length > 0
      ? `${where} never reported its end (it was ended by a signal or process.reallyExit, or its record was cut short)`
      : `${where} never reported ${unproven.length === 1 ? "it" : "them"} passing through node:test's own reporter`;
    const names = unproven.slice(0, NAMED).map((c) => c.id).join(", ");
    const more = unproven.length > NAMED ? ` and ${unproven.length - NAMED} more` : "";
    problems.push(`the ${label} report says ${names}${more} passed, but ${why}: something else wrote the report channel, so the run is not believed`);
  }
  return problems;
}
