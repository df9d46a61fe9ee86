import { describe, expect, it } from "vitest";
import { assertMacroShadows } from "../../../src/measure/diff/assert-shadows.js";
import { frozenClaim } from "../../../src/measure/diff/index.js";
import { context, lines, modified } from "./builders.js";

// Frozen inline tests bypassed by adding lines instead of changing them (issue 22): a macro named
// like a standard assertion macro, defined or imported by the change, makes every assert a no-op.
const found = (...texts: string[]) => assertMacroShadows([lines("src/lib.rs", ...texts)]).map((s) => s.test);

describe("assertMacroShadows", () => {
  it("finds assert macros redefined or imported under their name", () => {
    expect(found("    macro_rules! assert_eq {", "macro_rules!assert { () => {} }", "use crate::noop as assert_ne;", "pub use x::{y as panic};")).toEqual([
      "assert_eq!", "assert!", "assert_ne!", "panic!",
    ]);
  });

  it("leaves honest code alone: other macros, a crate's assert_eq imported by name, comments, other languages", () => {
    expect(found("macro_rules! assert_close {", "use pretty_assertions::assert_eq;", "// macro_rules! assert_eq", "let assert_eq = 1;")).toEqual([]);
    expect(assertMacroShadows([lines("src/x.py", "macro_rules! assert_eq {")])).toEqual([]);
  });

  it("fails diff.frozen, naming the file, the line and why", () => {
    const evidence = frozenClaim(context([modified("src/lib.rs")], { added: [lines("src/lib.rs", "fn a() {}", "macro_rules! assert_eq {")] }));
    expect(evidence.outcome).toBe("fail");
    expect(evidence.details).toEqual([{
      path: "src/lib.rs", kind: "assert-shadow",
      message: "src/lib.rs: line 2 defines or imports a macro named assert_eq!, which replaces the standard one the frozen tests assert with",
    }]);
  });
});
