import { describe, expect, it } from "vitest";
import { passesThatThrew } from "../../../src/measure/provenance/judge-bodies.js";
import { parseRecord } from "../../../src/measure/provenance/record.js";
import type { TestCaseResult } from "../../../src/measure/report-types.js";

const body = (n: string, r: string, a: number, i = 1): string => JSON.stringify({ k: "body", f: "/work/test/a.test.js", n, i, r, a, pid: 7 });
const reported = (name: string, result: TestCaseResult["result"] = "passed"): TestCaseResult => ({ id: `test/a.test.js::${name}`, file: "test/a.test.js", name, result } as TestCaseResult);

describe("which test bodies threw, against the report", () => {
  it("parses body lines relative to the tree, once each, each test of a name apart", () => {
    const record = parseRecord([body("x", "threw", 1), body("x", "threw", 1), body("x", "ok", 2), body("x", "threw", 1, 2), JSON.stringify({ k: "body", f: "/work/a", n: "", r: "threw" })].join("\n"), "/work");
    expect(record.bodies).toEqual([
      { file: "test/a.test.js", name: "x", instance: 700_001, result: "threw", attempt: 1 },
      { file: "test/a.test.js", name: "x", instance: 700_001, result: "ok", attempt: 2 },
      { file: "test/a.test.js", name: "x", instance: 700_002, result: "threw", attempt: 1 },
    ]);
    expect(record.dropped).toBe(1);
  });

  it("a pass whose last attempt threw is a problem; a later attempt that did not throw, a failed case or another test is not", () => {
    const record = parseRecord([body("forged", "threw", 1), body("retried", "threw", 1), body("retried", "ok", 2), body("failed", "threw", 1), body("again", "threw", 2), body("again", "ok", 1)].join("\n"), "/work");
    const cases = [reported("forged"), reported("retried"), reported("failed", "failed"), reported("again"), reported("untold")];
    expect(passesThatThrew("head", record.bodies, cases)).toEqual([
      "the head report says test/a.test.js::forged, test/a.test.js::again passed, but their bodies threw (told as it happened, before any hook of the test ran): the outcome was rewritten in the test's process, so the run is not believed",
    ]);
    expect(passesThatThrew("head", undefined, cases)).toEqual([]);
  });

  it("two tests of one name: one that threw and one that passed are two cases, one failed; both passed is a problem", () => {
    const record = parseRecord([body("same", "threw", 1, 1)].join("\n"), "/work");
    expect(passesThatThrew("head", record.bodies, [reported("same", "failed"), reported("same")])).toEqual([]);
    expect(passesThatThrew("head", record.bodies, [reported("same"), reported("same")])).toHaveLength(1);
  });
});
