import { describe, expect, it } from "vitest";
import { passesThatThrew } from "../../../src/measure/provenance/judge-bodies.js";
import { parseRecord } from "../../../src/measure/provenance/record.js";
import type { TestCaseResult } from "../../../src/measure/report-types.js";

const body = (n: string, r: string, a: number, f = "/work/test/a.test.js"): string => JSON.stringify({ k: "body", f, n, r, a, pid: 7 });
const passed = (name: string, file = "test/a.test.js"): TestCaseResult => ({ id: `${file}::${name}`, file, name, result: "passed" } as TestCaseResult);

describe("which test bodies threw, against the report", () => {
  it("parses body lines relative to the tree, once each, bounded like the rest", () => {
    const record = parseRecord([body("x", "threw", 1), body("x", "threw", 1), body("x", "ok", 2), JSON.stringify({ k: "body", f: "/work/a", n: "", r: "threw" })].join("\n"), "/work");
    expect(record.bodies).toEqual([{ file: "test/a.test.js", name: "x", result: "threw", attempt: 1 }, { file: "test/a.test.js", name: "x", result: "ok", attempt: 2 }]);
    expect(record.dropped).toBe(1);
  });

  it("a pass whose last attempt threw is a problem; a later attempt that did not throw, a failed case or another test is not", () => {
    const record = parseRecord([body("forged", "threw", 1), body("retried", "threw", 1), body("retried", "ok", 2), body("failed", "threw", 1), body("again", "threw", 2), body("again", "ok", 1)].join("\n"), "/work");
    const cases = [passed("forged"), passed("retried"), { ...passed("failed"), result: "failed" } as TestCaseResult, passed("again"), passed("untold")];
    expect(passesThatThrew("head", record.bodies, cases)).toEqual([
      "the head report says test/a.test.js::forged, test/a.test.js::again passed, but their bodies threw (told as it happened, before any hook of the test ran): the outcome was rewritten in the test's process, so the run is not believed",
    ]);
    expect(passesThatThrew("head", undefined, cases)).toEqual([]);
  });
});
