import { describe, expect, it } from "vitest";
import { inEachFile } from "../../src/measure/canary-files.js";
import type { CaseResult, TestCaseResult } from "../../src/measure/report-types.js";

// The canaries that run inside every test file, judged file by file (pure).
const at = (file: string, name: string, result: CaseResult): TestCaseResult => ({ id: `${file}::${name}`, file, name, result });
const mustFail = { name: "sorts empty row", expect: "fail" as const };
const mustPass = { name: "reads long key", expect: "pass" as const };

describe("a canary inside every test file", () => {
  it("is wrong only in the file where it came back wrong: one file's honest red does not hide another's green", () => {
    const mine = [at("a.test.js", mustFail.name, "failed"), at("b.test.js", mustFail.name, "passed")];
    const others = [at("a.test.js", "x", "passed"), at("b.test.js", "y", "passed")];
    expect(inEachFile(mustFail, mine, others)).toEqual({ files: 2, wrong: [{ file: "b.test.js", result: "passed" }], wrongCount: 1 });
  });

  it("missing or skipped in a file whose own tests ran is wrong; missing from the whole report judges nothing", () => {
    const mine = [at("a.test.js", mustFail.name, "failed"), at("c.test.js", mustFail.name, "skipped")];
    const others = [at("b.test.js", "y", "passed"), at("c.test.js", "z", "failed")];
    expect(inEachFile(mustFail, mine, others).wrong).toEqual([{ file: "b.test.js", result: "absent" }, { file: "c.test.js", result: "skipped" }]);
    expect(inEachFile(mustFail, [], others)).toEqual({ files: 0, wrong: [], wrongCount: 0 });
  });

  it("a must-pass canary failing where nothing else of the file passed (a throwing root hook) says nothing", () => {
    const others = [at("a.test.js", "x", "failed"), at("b.test.js", "y", "passed")];
    const mine = [at("a.test.js", mustPass.name, "failed"), at("b.test.js", mustPass.name, "failed")];
    expect(inEachFile(mustPass, mine, others).wrong).toEqual([{ file: "b.test.js", result: "failed" }]);
  });

  it("names at most ten files and counts the rest", () => {
    const files = Array.from({ length: 12 }, (_, i) => `t${String(i).padStart(2, "0")}.test.js`);
    const each = inEachFile(mustFail, files.map((f) => at(f, mustFail.name, "passed")), []);
    expect([each.wrong.length, each.wrongCount, each.files]).toEqual([10, 12, 12]);
  });
});
