import type { AddedLines } from "../../workspace/types.js";
import type { InlineTestEdit } from "./inline-tests.js";

// The standard macros tests assert with. A macro of the same name defined or imported by the change
// replaces them for every test that sees it (textual scope below a `macro_rules!`, a `use ... as`,
// or a glob import of a `#[macro_export]`ed one), so the frozen tests would assert nothing (issue 22:
// the bypass of frozen inline tests that adds lines instead of changing them). A plain
// `use pretty_assertions::assert_eq;` is left alone: it names a crate's macro the reviewer can see.
const RUST_ASSERT_MACROS = "assert|assert_eq|assert_ne|debug_assert|debug_assert_eq|debug_assert_ne|assert_matches|panic|unreachable|unimplemented|todo";
const RUST_SHADOW = new RegExp(
  `macro_rules!\\s*(?:r#)?(${RUST_ASSERT_MACROS})\\b|\\bas\\s+(?:r#)?(${RUST_ASSERT_MACROS})\\s*[;,}]`,
);

/** Added Rust lines that define or import a macro named like a standard assertion macro. */
export function assertMacroShadows(added: readonly AddedLines[]): InlineTestEdit[] {
  const found: InlineTestEdit[] = [];
  for (const file of added.filter((f) => /\.rs$/.test(f.path))) {
    for (const { line, text } of file.lines) {
      const m = RUST_SHADOW.exec(text.replace(/\/\/.*$/, ""));
      const name = m?.[1] ?? m?.[2];
      if (name === undefined) continue;
      found.push({
        path: file.path, test: `${name}!`, kind: "module",
        what: `line ${line} defines or imports a macro named ${name}!, which replaces the standard one the frozen tests assert with`,
      });
    }
  }
  return found;
}
