// The report held to which test bodies threw (src/runners/test-bodies.ts), pure. jest and vitest decide
// a test's outcome from objects in the test file's process, which code under test can rewrite after the
// body threw (a hook that empties jest-circus's `test.errors`, or sets vitest's `task.result.state`
// to "pass"). The in-file setup told the record's pipe as each body threw, before any hook ran: a test
// the report says passed whose last attempt threw, with no later attempt that did not, did not pass.
import type { TestCaseResult } from "../report-types.js";
import type { RecordedBody } from "./record.js";

const NAMED = 5;

/** One problem naming the reported passes whose bodies threw, or none. */
export function passesThatThrew(label: string, bodies: readonly RecordedBody[] | undefined, cases: readonly TestCaseResult[]): string[] {
  if (bodies === undefined || bodies.length === 0) return [];
  const last = new Map<string, { threw: number; ok: number }>();
  for (const body of bodies) {
    const id = `${body.file}::${body.name}`;
    const seen = last.get(id) ?? { threw: 0, ok: 0 };
    if (body.result === "threw") seen.threw = Math.max(seen.threw, body.attempt);
    else seen.ok = Math.max(seen.ok, body.attempt);
    last.set(id, seen);
  }
  const forged = cases.filter((c) => {
    if (c.result !== "passed") return false;
    const seen = last.get(c.id);
    return seen !== undefined && seen.threw > 0 && seen.ok <= seen.threw;
  });
  if (forged.length === 0) return [];
  const names = forged.slice(0, NAMED).map((c) => c.id).join(", ");
  const more = forged.length > NAMED ? ` and ${forged.length - NAMED} more` : "";
  return [`the ${label} report says ${names}${more} passed, but ${forged.length === 1 ? "its body" : "their bodies"} threw (told as it happened, before any hook of the test ran): the outcome was rewritten in the test's process, so the run is not believed`];
}
