import { describe, expect, it } from "vitest";
import { endsWithAttribute, inlineTestEdits, inlineTestRanges, isCfgTest, rustTestRanges } from "../../../src/measure/diff/inline-tests.js";
import { frozenClaim } from "../../../src/measure/diff/index.js";
import { context, modified } from "./builders.js";

// The scanner that finds Rust's inline tests on the base (issue 22): braces inside strings, raw
// strings, char literals and comments must not end or open an item, or a test would escape.
const names = (text: string) => rustTestRanges(text).map((r) => [r.kind, r.name, r.start, r.open, r.end]);

const LIB = [
  "pub fn add(a: i64, b: i64) -> i64 { a + b }", //  1
  "",                                              //  2
  "#[cfg(test)]",                                  //  3
  "mod tests {",                                   //  4
  "    use super::*;",                             //  5
  "",                                              //  6
  "    #[test]",                                   //  7
  "    fn adds() {",                               //  8
  "        assert_eq!(add(1, 2), 3);",             //  9
  "        assert_eq!(add(-1, 1), 0);",            // 10
  "    }",                                         // 11
  "",                                              // 12
  "    #[test]",                                   // 13
  "    fn adds_zero() {",                          // 14
  "        assert_eq!(add(0, 0), 0);",             // 15
  "    }",                                         // 16
  "}",                                             // 17
  "",
].join("\n");

describe("rustTestRanges", () => {
  it("finds a cfg(test) module and its test fns, attributes on their own lines", () => {
    expect(names(LIB)).toEqual([
      ["module", "tests", 3, 4, 17],
      ["fn", "tests::adds", 7, 8, 11],
      ["fn", "tests::adds_zero", 13, 14, 16],
    ]);
  });

  it("is not fooled by braces in strings, raw strings, chars and comments", () => {
    const text = [
      "#[test]",
      "fn tricky() {",
      '    let s = "}}} \\" }";',
      '    let r = r#"{ "} "#;',
      '    let rr = br##"}"# }"##;',
      "    let c = '}'; let d = '\\''; let e = '{';",
      "    // } a comment with a brace",
      "    /* } /* nested { */ } */",
      "    fn inner<'a>(x: &'a str) -> &'a str { x }",
      "    assert!(s.len() > 0);",
      "}",
      "fn after() { }",
    ].join("\n");
    expect(names(text)).toEqual([["fn", "tricky", 1, 2, 11]]);
  });

  it("names nested modules, takes tokio::test and inner #![cfg(test)], ignores cfg(feature = \"test\")", () => {
    const text = [
      "mod outer {",                              // 1
      "    #[cfg(test)]",                         // 2
      "    mod tests {",                          // 3
      "        mod deep {",                       // 4
      "            #[tokio::test]",               // 5
      "            async fn waits() {",           // 6
      "            }",                            // 7
      "        }",                                // 8
      "    }",                                    // 9
      "}",                                        // 10
      "mod inner_tests {",                        // 11
      "    #![cfg(test)]",                        // 12
      "    fn helper() {}",                       // 13
      "}",                                        // 14
      '#[cfg(feature = "test")]',                 // 15
      "mod not_tests { fn f() {} }",              // 16
      "#[test]",                                  // 17
      "#[should_panic(expected = \"]\")]",        // 18
      "fn panics() { panic!(\"]\") }",            // 19
    ].join("\n");
    expect(names(text)).toEqual([
      ["module", "outer::tests", 2, 3, 9],
      ["module", "outer::tests::deep", 4, 4, 8],
      ["fn", "outer::tests::deep::waits", 5, 6, 7],
      ["module", "inner_tests", 11, 11, 14],
      ["fn", "inner_tests::helper", 13, 13, 13],
      ["fn", "panics", 17, 19, 19],
    ]);
  });

  it("reads cfg(test) in its forms", () => {
    expect(isCfgTest("cfg(test)")).toBe(true);
    expect(isCfgTest("cfg(all(test, unix))")).toBe(true);
    expect(isCfgTest('cfg(feature = "test")')).toBe(false);
    expect(isCfgTest("cfg(testing)")).toBe(false);
    expect(isCfgTest("derive(test)")).toBe(false);
  });

  it("leaves languages without a scanner alone", () => {
    expect(inlineTestRanges("src/lib.py", "#[test]\nfn x() {}\n")).toEqual([]);
  });
});

describe("inlineTestEdits", () => {
  const ranges = rustTestRanges(LIB);
  const edits = (hunks: Parameters<typeof inlineTestEdits>[2]) => inlineTestEdits("src/lib.rs", ranges, hunks).map((e) => [e.test, e.what]);

  it("blames an assert deleted from a test fn on that fn", () => {
    expect(edits([{ oldStart: 10, oldCount: 1, added: [] }])).toEqual([
      ["tests::adds", "test fn tests::adds (lines 7-11 on base) changed: base line 10 modified or deleted"],
    ]);
  });

  it("allows a new test fn added into the module, at its end or between tests", () => {
    const added = ["", "    #[test]", "    fn adds_more() {", "        assert_eq!(add(2, 2), 4);", "    }"];
    expect(edits([{ oldStart: 16, oldCount: 0, added }])).toEqual([]);
    expect(edits([{ oldStart: 12, oldCount: 0, added: [...added.slice(1), ""] }])).toEqual([]);
  });

  it("fails lines inserted inside a test fn, and an attribute inserted right above one", () => {
    expect(edits([{ oldStart: 8, oldCount: 0, added: ["        return;"] }])).toEqual([
      ["tests::adds", "test fn tests::adds (lines 7-11 on base) changed: 1 line inserted into it after line 8"],
    ]);
    expect(edits([{ oldStart: 12, oldCount: 0, added: ["    #[ignore]"] }])).toEqual([
      ["tests::adds_zero", "test fn tests::adds_zero (lines 13-16 on base) changed: an attribute inserted above it after line 12"],
    ]);
  });

  it("fails a module line changed outside any fn, and an attribute slipped into its signature", () => {
    expect(edits([{ oldStart: 5, oldCount: 1, added: ["    use super::add as _;"] }])).toMatchObject([["tests", expect.stringContaining("base line 5")]]);
    expect(edits([{ oldStart: 3, oldCount: 0, added: ["#[cfg(any())]"] }])).toMatchObject([["tests", expect.stringContaining("into its signature")]]);
  });

  it("leaves code outside the tests alone", () => {
    expect(edits([{ oldStart: 1, oldCount: 1, added: ["pub fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }"] }])).toEqual([]);
  });

  it("tells an attribute at the end of inserted text from a whole item", () => {
    expect(endsWithAttribute(["#[ignore] // skip"])).toBe(true);
    expect(endsWithAttribute(["#[test]", "fn x() {}", ""])).toBe(false);
  });
});

describe("diff.frozen with inline test edits", () => {
  it("fails, naming the file, the test and why", () => {
    const [edit] = inlineTestEdits("src/lib.rs", rustTestRanges(LIB), [{ oldStart: 9, oldCount: 2, added: [] }]);
    const evidence = frozenClaim(context([modified("src/lib.rs")], { inlineTestEdits: edit === undefined ? [] : [edit] }));
    expect(evidence.outcome).toBe("fail");
    expect(evidence.details).toEqual([{ path: "src/lib.rs", kind: "inline-test", message: expect.stringContaining("test fn tests::adds (lines 7-11 on base) changed: base lines 9-10 modified or deleted") }]);
    expect(evidence.reason).toContain("tests on the base are frozen wherever they live");
  });
});

describe("inlineTestEdits: new items that shadow what the old tests call", () => {
  const ranges = rustTestRanges(LIB);
  const edits = (added: string[]) => inlineTestEdits("src/lib.rs", ranges, [{ oldStart: 5, oldCount: 0, added }], LIB).map((e) => [e.test, e.what]);

  it("fails a new fn or import in the module that takes a name the tests use", () => {
    expect(edits(["    fn add(a: i64, b: i64) -> i64 { a + b }"])).toEqual([
      ["tests", "test module tests (lines 3-17 on base) changed: a new item inserted after line 5 takes a name its tests already use (add), so they would call it instead"],
    ]);
    expect(edits(["    use crate::other::{add as add, sub};"])).toMatchObject([["tests", expect.stringContaining("(add)")]]);
  });

  it("allows new helpers and imports with new names", () => {
    expect(edits(["    use std::collections::HashMap;", "    fn sample() -> i64 { 2 }", "    const LIMIT: i64 = 3;"])).toEqual([]);
  });
});
