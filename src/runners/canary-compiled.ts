// The canary families of the compiled ecosystems (issue 19 with issue 22): a test file of the
// language, named and worded like the tests beside it, with tests that must fail through the
// language's own failure paths (a plain failure, the assertion the suite uses) and one that must pass.
// Each computes the checksum of a word (src/measure/canary.ts), so no literal gives the outcome away.
import { lstat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileWords, phrases } from "../measure/canary-names.js";
import type { CanaryContext, CanaryMember, CanaryResult } from "./types.js";

const camel = (words: readonly string[]): string => words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");

async function free(treeDir: string, rel: string): Promise<boolean> {
  return lstat(join(treeDir, rel)).then(() => false, () => true);
}

/** A fresh file name in `folder` (`name(words)`), one more word when the drawn one is taken. */
async function freshFile(treeDir: string, folder: string, name: (words: string[]) => string): Promise<string> {
  for (;;) {
    const rel = `${folder === "" ? "" : `${folder}/`}${name(fileWords())}`;
    if (await free(treeDir, rel)) return rel;
  }
}

/** Go: a `_test.go` file in the package folder `folder`, with that folder's package clause. */
export async function goCanaries(ctx: CanaryContext, folder: string, clause: string): Promise<CanaryResult> {
  const file = await freshFile(ctx.treeDir, folder, (w) => `${w.join("_")}_test.go`);
  const [fatal, errorf, pass] = phrases(3).map((w) => `Test${camel(w)}`) as [string, string, string];
  const { word, right, wrong } = ctx.values;
  const sum = `got := 0\n\tfor i, r := range ${JSON.stringify(word)} {\n\t\tgot += (i + 1) * int(r)\n\t}\n\tgot %= 1009`;
  const body = `package ${clause}\n\nimport "testing"\n\n`
    + `func ${fatal}(t *testing.T) {\n\t${sum}\n\tif got != ${wrong} {\n\t\tt.Fatalf("expected %d, got %d", ${wrong}, got)\n\t}\n}\n\n`
    + `func ${errorf}(t *testing.T) {\n\t${sum}\n\tif got != ${wrong} {\n\t\tt.Errorf("expected %d, got %d", ${wrong}, got)\n\t}\n}\n\n`
    + `func ${pass}(t *testing.T) {\n\t${sum}\n\tif got != ${right} {\n\t\tt.Fatalf("expected %d, got %d", ${right}, got)\n\t}\n}\n`;
  await writeFile(join(ctx.treeDir, file), body, { flag: "wx" });
  const members: CanaryMember[] = [
    { name: fatal, via: "go t.Fatalf", expect: "fail" }, { name: errorf, via: "go t.Errorf", expect: "fail" }, { name: pass, via: "go t.Fatalf", expect: "pass" },
  ];
  return { treeFiles: [file], members };
}

/** Rust: an integration test file (tests/<name>.rs) of the root package. */
export async function cargoCanaries(ctx: CanaryContext): Promise<CanaryResult> {
  const file = await freshFile(ctx.treeDir, "tests", (w) => `${w.join("_")}.rs`);
  const [panics, assertEq, pass] = phrases(3).map((w) => w.join("_")) as [string, string, string];
  const { word, right, wrong } = ctx.values;
  const body = `fn checksum(text: &str) -> usize {\n    text.chars().enumerate().map(|(i, c)| (i + 1) * (c as usize)).sum::<usize>() % 1009\n}\n\n`
    + `#[test]\nfn ${panics}() {\n    let got = checksum(${JSON.stringify(word)});\n    if got != ${wrong} {\n        panic!("expected ${wrong}, got {}", got);\n    }\n}\n\n`
    + `#[test]\nfn ${assertEq}() {\n    assert_eq!(checksum(${JSON.stringify(word)}), ${wrong});\n}\n\n`
    + `#[test]\nfn ${pass}() {\n    assert_eq!(checksum(${JSON.stringify(word)}), ${right});\n}\n`;
  await writeFile(join(ctx.treeDir, file), body, { flag: "wx" });
  const members: CanaryMember[] = [
    { name: panics, via: "rust panic!", expect: "fail" }, { name: assertEq, via: "rust assert_eq!", expect: "fail" }, { name: pass, via: "rust assert_eq!", expect: "pass" },
  ];
  return { treeFiles: [file], members };
}

/** Java (Maven, Gradle): a test class in src/test/java of the JUnit the build names (Jupiter or 4). */
export async function junitCanaries(ctx: CanaryContext, jupiter: boolean): Promise<CanaryResult> {
  const file = await freshFile(ctx.treeDir, "src/test/java", (w) => `${camel(w)}Test.java`);
  const cls = file.slice(file.lastIndexOf("/") + 1, -".java".length);
  const [thrown, assertEquals, pass] = phrases(3).map((w) => { const c = camel(w); return c.charAt(0).toLowerCase() + c.slice(1); }) as [string, string, string];
  const { word, right, wrong } = ctx.values;
  const test = jupiter ? "org.junit.jupiter.api.Test" : "org.junit.Test";
  const equals = jupiter ? "org.junit.jupiter.api.Assertions.assertEquals" : "org.junit.Assert.assertEquals";
  const q = JSON.stringify(word);
  const body = `public class ${cls} {\n  private static int checksum(String text) {\n    int sum = 0;\n    for (int i = 0; i < text.length(); i++) sum += (i + 1) * text.charAt(i);\n    return sum % 1009;\n  }\n\n`
    + `  @${test}\n  public void ${thrown}() {\n    int got = checksum(${q});\n    if (got != ${wrong}) throw new AssertionError("expected ${wrong}, got " + got);\n  }\n\n`
    + `  @${test}\n  public void ${assertEquals}() {\n    ${equals}(${wrong}, checksum(${q}));\n  }\n\n`
    + `  @${test}\n  public void ${pass}() {\n    ${equals}(${right}, checksum(${q}));\n  }\n}\n`;
  await writeFile(join(ctx.treeDir, file), body, { flag: "wx" });
  const members: CanaryMember[] = [
    { name: thrown, via: "java AssertionError", expect: "fail" }, { name: assertEquals, via: "junit assertEquals", expect: "fail" }, { name: pass, via: "junit assertEquals", expect: "pass" },
  ];
  return { treeFiles: [file], members };
}
