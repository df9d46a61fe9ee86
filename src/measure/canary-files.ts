// The canaries that run inside every test file (jest's setup-file family, src/runners/canary-in-file.ts)
// are judged file by file: the worst outcome across files would let one file's honest red hide
// another's forged green, and a file where they went missing would not show at all.
import type { CanaryMember } from "../runners/types.js";
import type { CanaryMemberOutcome, CaseResult, TestCaseResult } from "./report-types.js";

const NAMED = 10;

type FileResult = CaseResult | "absent";

/**
 * What one in-file canary did in each test file of the report. `mine` are the family's cases, `others`
 * the repository's. A file is judged when the family or its own tests ran in it; a report without any
 * of the family (a selection, a configuration the launcher could not extend) judges none.
 */
export function inEachFile(member: Pick<CanaryMember, "name" | "expect">, mine: readonly TestCaseResult[], others: readonly TestCaseResult[]): NonNullable<CanaryMemberOutcome["inEachFile"]> {
  if (mine.length === 0) return { files: 0, wrong: [], wrongCount: 0 };
  const files = new Set<string>();
  for (const c of [...mine, ...others]) if (c.file !== null) files.add(c.file);
  const wrong: { file: string; result: FileResult; message?: string }[] = [];
  let reported = 0;
  for (const file of [...files].sort()) {
    const own = others.filter((c) => c.file === file);
    const family = mine.filter((c) => c.file === file);
    const cases = family.filter((c) => c.name === member.name);
    const result = worst(member.expect, cases.map((c) => c.result));
    if (result !== "absent") reported += 1;
    const othersRan = own.some((c) => c.result !== "skipped") || family.some((c) => c.name !== member.name && c.result !== "skipped");
    if (isWrong(member.expect, result, othersRan, own.some((c) => c.result === "passed"))) {
      // What the canary said, when it said something (the registration canary names the test and the file).
      const message = cases.find((c) => c.result === result && c.message !== undefined)?.message;
      wrong.push({ file, result, ...(message !== undefined ? { message } : {}) });
    }
  }
  return { files: reported, wrong: wrong.slice(0, NAMED), wrongCount: wrong.length };
}

/** A must-fail canary's most suspicious outcome is a pass; a must-pass one's a failure. */
function worst(expect: "fail" | "pass", results: readonly CaseResult[]): FileResult {
  const order: readonly CaseResult[] = expect === "fail" ? ["passed", "skipped", "errored", "failed"] : ["failed", "errored", "skipped", "passed"];
  return order.find((r) => results.includes(r)) ?? "absent";
}

function isWrong(expect: "fail" | "pass", result: FileResult, othersRan: boolean, otherPassed: boolean): boolean {
  // Missing, or skipped, where the file's own tests (or the rest of the family) ran: taken out.
  if (result === "absent" || result === "skipped") return othersRan;
  if (expect === "fail") return result === "passed";
  // A must-pass canary that fails where nothing of the file passed (a root hook of the file that
  // throws fails every test in it) says nothing about `expect`.
  return result !== "passed" && otherPassed;
}
