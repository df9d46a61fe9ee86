// The report held to which test bodies threw (src/runners/test-bodies.ts), pure. jest and vitest decide
// a test's outcome from objects in the test file's process, which code under test can rewrite after the
// body threw (a hook that empties jest-circus's `test.errors`, or sets vitest's `task.result.state`
// to "pass"). The in-file setup told the record's pipe as each body threw, before any hook ran: a test
// whose last attempt threw, with no later attempt that did not, did not pass. Two tests of a file may
// share a name (one id in the report): then as many of that id's cases must be reported not passed as
// there are tests of it whose last attempt threw.
import type { TestCaseResult } from "../report-types.js";
import type { RecordedBody } from "./record.js";

const NAMED = 5;

/** One problem naming the ids reported passed more often than their bodies allow, or none. */
export function passesThatThrew(label: string, bodies: readonly RecordedBody[] | undefined, cases: readonly TestCaseResult[]): string[] {
  if (bodies === undefined || bodies.length === 0) return [];
  // Per id, per test of it: the last attempt that threw and the last that did not.
  const tests = new Map<string, Map<number, { threw: number; ok: number }>>();
  for (const body of bodies) {
    const id = `${body.file}::${body.name}`;
    const byTest = tests.get(id) ?? new Map<number, { threw: number; ok: number }>();
    const seen = byTest.get(body.instance) ?? { threw: 0, ok: 0 };
    if (body.result === "threw") seen.threw = Math.max(seen.threw, body.attempt);
    else seen.ok = Math.max(seen.ok, body.attempt);
    byTest.set(body.instance, seen);
    tests.set(id, byTest);
  }
  const forged: string[] = [];
  for (const [id, byTest] of tests) {
    const threw = [...byTest.values()].filter((t) => t.threw > t.ok).length;
    if (threw === 0) continue;
    const reported = cases.filter((c) => c.id === id);
    const notPassed = reported.filter((c) => c.result !== "passed").length;
    if (reported.some((c) => c.result === "passed") && notPassed < threw) forged.push(id);
  }
  if (forged.length === 0) return [];
  const names = forged.slice(0, NAMED).join(", ");
  const more = forged.length > NAMED ? ` and ${forged.length - NAMED} more` : "";
  return [`the ${label} report says ${names}${more} passed, but ${forged.length === 1 ? "its body" : "their bodies"} threw (told as it happened, before any hook of the test ran): the outcome was rewritten in the test's process, so the run is not believed`];
}
