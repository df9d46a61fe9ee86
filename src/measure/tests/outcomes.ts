// Same-named tests (issue 15, "Duplicates never block by themselves"). A `test.each` title with no
// placeholder, or one describe title used twice, gives several tests one id. Which copy is which
// cannot be told, so copies are compared as a multiset of outcomes: a change fails only when fewer
// copies pass on head than on base. A task may name one copy by its place in the report,
// `<id>#<n>` (1-based), which `uniqueIds` lists; naming the shared id itself is refused.
import type { CopyOutcome, TestCaseResult, TestReport } from "../report-types.js";
import { isGreen, isRed } from "./run-facts.js";

/** Every copy of a case: the case itself when its id is unique. */
export function copiesOf(c: TestCaseResult): CopyOutcome[] {
  return c.copies ?? [c];
}

export function isShared(c: TestCaseResult | undefined): boolean {
  return c !== undefined && c.copies !== undefined && c.copies.length > 1;
}

const greenCopy = (copy: CopyOutcome): boolean => isGreen({ id: "", file: null, name: "", ...copy });
const redCopy = (copy: CopyOutcome): boolean => isRed({ id: "", file: null, name: "", ...copy });

export interface CopyCounts {
  copies: number;
  passed: number;
}

export function countCopies(c: TestCaseResult | undefined): CopyCounts {
  const copies = c === undefined ? [] : copiesOf(c);
  return { copies: copies.length, passed: copies.filter(greenCopy).length };
}

/**
 * How many copies provably or possibly went from pass to not-pass. Fewer passing copies on head is a
 * loss. When head holds more copies than base, the extra ones could hide a broken copy behind a new
 * passing one, so more not-passing copies than on base count as a loss too.
 */
export function lostCopies(before: TestCaseResult, after: TestCaseResult | undefined): number {
  const b = countCopies(before);
  const a = countCopies(after);
  if (b.passed === 0) return 0;
  const fewerPassing = Math.max(0, b.passed - a.passed);
  const moreFailing = a.copies > b.copies ? Math.max(0, (a.copies - a.passed) - (b.copies - b.passed)) : 0;
  return Math.max(fewerPassing, moreFailing);
}

/** "2 of 3 copies passed" or the one word for a unique test. */
export function copiesWord(c: TestCaseResult | undefined): string {
  if (c === undefined) return "absent";
  const { copies, passed } = countCopies(c);
  return `${passed} of ${copies} copies passed`;
}

const ORDINAL = /^(.*)#([1-9][0-9]{0,5})$/s;

export type Resolved =
  | { kind: "case"; case: TestCaseResult }
  | { kind: "shared"; ids: string[] }
  | { kind: "absent" };

/**
 * The case a target id names in a report: a unique id, or `<id>#<n>`, the n-th copy of a shared id.
 * A shared id named as such is `shared`, with the ids that name each copy. A real id always wins over
 * reading it as an ordinal.
 */
export function resolveCase(byId: ReadonlyMap<string, TestCaseResult>, id: string): Resolved {
  const found = byId.get(id);
  if (found !== undefined) {
    return isShared(found) ? { kind: "shared", ids: ordinalIds(found) } : { kind: "case", case: found };
  }
  const ordinal = ORDINAL.exec(id);
  const shared = ordinal === null ? undefined : byId.get(ordinal[1] ?? "");
  if (ordinal === null || shared === undefined) return { kind: "absent" };
  const copy = copiesOf(shared)[Number(ordinal[2]) - 1];
  if (copy === undefined) return { kind: "absent" };
  return { kind: "case", case: { id, file: shared.file, name: shared.name, ...copy } };
}

function ordinalIds(c: TestCaseResult): string[] {
  return copiesOf(c).map((_, index) => `${c.id}#${index + 1}`);
}

/** Every id a task may name: unique ids as they are, each copy of a shared id as `<id>#<n>`. */
export function uniqueIds(report: Pick<TestReport, "cases">): string[] {
  return report.cases.flatMap((c) => (isShared(c) ? ordinalIds(c) : [c.id]));
}

/** True when any copy of the case is red (failed or errored, not a strict xpass). */
export function anyRed(c: TestCaseResult): boolean {
  return copiesOf(c).some(redCopy);
}
