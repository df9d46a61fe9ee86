// Test ids a run makes up (issue 22, marshmallow): a case parametrized with the clock
// (`dt.datetime.now().strftime(…)`), a memory address (`<object object at 0x7f…>`), a uuid4 or a
// random seed is named anew by every run, so a base run from minutes before and the head disagree on
// its id although neither tree changed it. Comparing ids exactly, it "vanished on head".
//
// The shape of an id never proves it was made up: a change could swap a parametrized case for
// another of the same shape. So an id is matched by its normalised form only where the gate's own
// second run of the base (src/measure/repeats.ts, `baseAgain`) named the same key's tests otherwise
// than the first: the same tree gave other ids, so the run made them, whatever the head did. Within
// such a key the tests are compared as counts of outcomes (./outcomes.ts): every base test of the key
// that passed needs one on head that passes, and the head may not hold more failing ones.
import type { SuiteRun, TestCaseResult, TestReport } from "../report-types.js";

/**
 * The id with every part a run could make up replaced: uuids, hex addresses, long hex strings, and
 * every run of digits (clock times, dates, seeds). Two ids of one test in two runs share it.
 */
export function normalisedId(id: string): string {
  return id
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/0x[0-9a-f]+/gi, "<address>")
    .replace(/\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, "<hex>")
    .replace(/[0-9]+/g, "#");
}

/**
 * Whether a report holds ids a run may have made up (a uuid, an address, a long hex string, five or
 * more digits in a row, a clock time): a warm judgment then lays out the base's tree too, for the
 * second run that tells (the cached base run has none). Digits alone (`case1`, `[3-4]`) do not count.
 */
export function mayHoldMadeIds(report: TestReport | null | undefined): boolean {
  return report != null && report.cases.some((c) => /<uuid>|<address>|<hex>/.test(normalisedId(c.id)) || /[0-9]{5}|[0-9]:[0-9]{2}:[0-9]{2}/.test(c.id));
}

/** The key tests are matched by: the file and the normalised id. */
function keyOf(c: TestCaseResult): string {
  return `${c.file ?? ""}\u0000${normalisedId(c.id)}`;
}

/**
 * The test files whose base ids a second run of the base must show: files where a base test is absent
 * on head by its exact id while the head has a test absent on base with the same normalised id.
 * Empty when every id matches exactly (the usual case: no second run is made).
 */
export function filesToRunAgain(base: TestReport | null | undefined, head: TestReport | null | undefined): string[] {
  if (base == null || head == null) return [];
  const { baseOnly, headOnly } = unmatched(base, head);
  const headKeys = new Set(headOnly.map(keyOf));
  return [...new Set(baseOnly.filter((c) => c.file !== null && headKeys.has(keyOf(c))).map((c) => c.file as string))].sort();
}

/** A key whose ids two runs of the base disagreed on, with the tests of either side that lack an exact match. */
export interface MadeIdGroup {
  file: string;
  normalised: string;
  base: TestCaseResult[];
  head: TestCaseResult[];
  /** The ids the base's second run gave this key (shown: the proof). */
  again: string[];
}

export interface MadeIdMatch {
  groups: MadeIdGroup[];
  /** Base and head ids matched through a group, never compared by their exact id. */
  baseIds: Set<string>;
  headIds: Set<string>;
  /** Keys that looked made up but the second run did not prove so (or there was no second run): why. */
  unproven: string[];
}

const NONE: MadeIdMatch = { groups: [], baseIds: new Set(), headIds: new Set(), unproven: [] };

/**
 * The keys whose ids the base's second run proves made up, and the unmatched tests of each side in
 * them. `again` is that second run (null when none was made); it speaks only of the files it ran.
 */
export function matchMadeIds(base: TestReport, head: TestReport, again: SuiteRun | null | undefined): MadeIdMatch {
  const { baseOnly, headOnly } = unmatched(base, head);
  if (baseOnly.length === 0 || headOnly.length === 0) return NONE;
  const headByKey = groupBy(headOnly);
  const candidates = [...groupBy(baseOnly)].filter(([key]) => headByKey.has(key) && !key.startsWith("\u0000"));
  if (candidates.length === 0) return NONE;
  const why = againProblem(again);
  if (why !== null) return { ...NONE, unproven: [why] };
  const againReport = again?.report as TestReport;
  const ran = new Set(again?.selectedFiles ?? againReport.cases.map((c) => c.file));
  const againByKey = groupBy(againReport.cases);
  const firstByKey = groupBy(base.cases);
  const found: MadeIdMatch = { groups: [], baseIds: new Set(), headIds: new Set(), unproven: [] };
  for (const [key, baseCases] of candidates) {
    const file = baseCases[0]?.file ?? "";
    const first = idSet(firstByKey.get(key) ?? []);
    const second = idSet(againByKey.get(key) ?? []);
    if (!ran.has(file) || sameSet(first, second)) {
      found.unproven.push(`${baseCases.map((c) => c.id).join(", ")}: a second run of the base gave ${ran.has(file) ? "the same ids" : `no test of ${file}`}, so the change, not the run, made the head's ids differ`);
      continue;
    }
    const headCases = headByKey.get(key) ?? [];
    found.groups.push({ file, normalised: normalisedId(baseCases[0]?.id ?? ""), base: baseCases, head: headCases, again: [...second].sort() });
    for (const c of baseCases) found.baseIds.add(c.id);
    for (const c of headCases) found.headIds.add(c.id);
  }
  return found;
}

function againProblem(again: SuiteRun | null | undefined): string | null {
  if (again == null) return "ids that differ only in digits or hex were not run again on the base (the gate runs them again only with tests.stable's repeats and a base tree), so they are compared exactly";
  if (again.report === null || again.command === null) return `the second run of the base to tell made-up ids left no report (${again.reportError ?? "it did not run"}), so ids are compared exactly`;
  if (again.command.timedOut || again.command.violation !== null) return "the second run of the base to tell made-up ids did not finish within its limits, so ids are compared exactly";
  return null;
}

function unmatched(base: TestReport, head: TestReport): { baseOnly: TestCaseResult[]; headOnly: TestCaseResult[] } {
  const onHead = new Set(head.cases.map((c) => c.id));
  const onBase = new Set(base.cases.map((c) => c.id));
  return { baseOnly: base.cases.filter((c) => !onHead.has(c.id)), headOnly: head.cases.filter((c) => !onBase.has(c.id)) };
}

function groupBy(cases: readonly TestCaseResult[]): Map<string, TestCaseResult[]> {
  const out = new Map<string, TestCaseResult[]>();
  for (const c of cases) out.set(keyOf(c), [...out.get(keyOf(c)) ?? [], c]);
  return out;
}

function idSet(cases: readonly TestCaseResult[]): Set<string> {
  return new Set(cases.map((c) => c.id));
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

/** The tests of one side of a group as one case with a copy per test: compared as counts (./outcomes.ts). */
export function asCopies(group: MadeIdGroup, side: "base" | "head"): TestCaseResult | undefined {
  const cases = group[side];
  if (cases.length === 0) return undefined;
  const copies = cases.flatMap((c) => c.copies ?? [{ result: c.result, ...(c.flavour === undefined ? {} : { flavour: c.flavour }), ...(c.message === undefined ? {} : { message: c.message }) }]);
  return { id: group.normalised, file: group.file, name: group.normalised, result: cases[0]?.result ?? "errored", copies };
}
