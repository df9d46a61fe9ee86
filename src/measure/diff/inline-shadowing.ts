// New items added into a base test module (issue 22) are new tests, allowed, unless they take a
// name the old tests already use: then those tests call the new item instead of the code under test.
import type { InlineTestRange } from "./inline-tests.js";

const KEYWORDS = new Set(["use", "pub", "crate", "self", "super", "as", "in"]);

/** Names an inserted item defines or imports: `fn x`, `const X`, `struct X`, `use a::{x, y as z}`. */
function definedNames(added: readonly string[]): string[] {
  const names: string[] = [];
  for (const text of added.map((l) => l.replace(/\/\/.*$/, ""))) {
    for (const m of text.matchAll(/\b(?:fn|const|static|struct|enum|type|mod|trait|union|macro_rules!)\s*(?:r#)?([A-Za-z_]\w*)/g)) names.push(m[1] ?? "");
    if (/^\s*(?:pub(?:\([^)]*\))?\s+)?use\b/.test(text)) {
      for (const m of text.matchAll(/([A-Za-z_]\w*)(?!\w|\s*::)/g)) if (!KEYWORDS.has(m[1] ?? "")) names.push(m[1] ?? "");
    }
  }
  return names.filter((n) => n !== "" && n !== "_");
}

/**
 * The test module an insertion into its body shadows something in: a new item (or import) that takes
 * a name the base's module already uses makes the old tests call it instead of the code under test
 * (`fn midpoint` added beside `use super::*`). New helpers with new names stay allowed.
 */
export function shadowing(ranges: readonly InlineTestRange[], after: number, added: readonly string[], baseLines: readonly string[]): InlineTestRange | undefined {
  const module = ranges.filter((r) => r.kind === "module" && r.open <= after && after < r.end).sort((a, b) => (a.end - a.start) - (b.end - b.start))[0];
  return module !== undefined && shadowed(module, added, baseLines).length > 0 ? module : undefined;
}

/** The names an insertion into a test module takes that the base's module already uses. */
export function shadowed(module: InlineTestRange, added: readonly string[], baseLines: readonly string[]): string[] {
  const used = new Set(baseLines.slice(module.start - 1, module.end).join("\n").match(/[A-Za-z_]\w*/g) ?? []);
  return [...new Set(definedNames(added).filter((n) => used.has(n)))];
}

