// The canary families of the compiled ecosystems (issue 19 with issue 22): a test file of the
// language, named and worded like the tests beside it, with tests that must fail through the
// language's own failure paths (a plain failure, the assertion the suite uses) and one that must pass.
// Each computes the checksum of a word (src/measure/canary.ts), so no literal gives the outcome away.
import { lstat, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import type { TestBinary } from "./cargo-targets.js";
import { readTreeFile } from "./tree-read.js";
import { canaryTail, endHook, mayHook } from "./cargo-end-mark.js";
import { fileWords, phrases } from "../measure/canary-names.js";
import type { CanaryContext, CanaryMember, CanaryResult } from "./types.js";

const camel = (words: readonly string[]): string => words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");

// Not junit-read's treeResolver: importing it from here would close an import cycle through the runner registry.
async function isFolder(treeDir: string, rel: string): Promise<boolean> {
  return lstat(join(treeDir, rel)).then((s) => s.isDirectory(), () => false);
}

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

/** Draws `count` phrases none of which `taken` holds yet (the family spans binaries: names stay unique across them). */
function freshPhrases(count: number, taken: Set<string>): string[][] {
  for (;;) {
    const drawn = phrases(count);
    const keys = drawn.map((w) => w.join("_"));
    if (keys.some((k) => taken.has(k))) continue;
    for (const k of keys) taken.add(k);
    return drawn;
  }
}

/** A regular expression's source matching `text` literally. */
export const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * Go: a `_test.go` file in the package folder `folder` (its test binary), with that folder's package
 * clause; `pkg` is the package's import path, the prefix of its tests' ids.
 */
export async function goCanaries(ctx: CanaryContext, folder: string, clause: string, pkg: string, taken: Set<string>): Promise<{ treeFiles: string[]; members: CanaryMember[] }> {
  const file = await freshFile(ctx.treeDir, folder, (w) => `${w.join("_")}_test.go`);
  const [fatal, errorf, pass] = freshPhrases(3, taken).map((w) => `Test${camel(w)}`) as [string, string, string];
  const { word, right, wrong } = ctx.values;
  const sum = `got := 0\n\tfor i, r := range ${JSON.stringify(word)} {\n\t\tgot += (i + 1) * int(r)\n\t}\n\tgot %= 1009`;
  const body = `package ${clause}\n\nimport "testing"\n\n`
    + `func ${fatal}(t *testing.T) {\n\t${sum}\n\tif got != ${wrong} {\n\t\tt.Fatalf("expected %d, got %d", ${wrong}, got)\n\t}\n}\n\n`
    + `func ${errorf}(t *testing.T) {\n\t${sum}\n\tif got != ${wrong} {\n\t\tt.Errorf("expected %d, got %d", ${wrong}, got)\n\t}\n}\n\n`
    + `func ${pass}(t *testing.T) {\n\t${sum}\n\tif got != ${right} {\n\t\tt.Fatalf("expected %d, got %d", ${right}, got)\n\t}\n}\n`;
  await writeFile(join(ctx.treeDir, file), body, { flag: "wx" });
  const inBinary = { label: pkg, ids: `^${literally(pkg)}/(?:Test|Example|Fuzz)`, folder };
  const members: CanaryMember[] = [
    { name: fatal, via: "go t.Fatalf", expect: "fail" }, { name: errorf, via: "go t.Errorf", expect: "fail" }, { name: pass, via: "go t.Fatalf", expect: "pass" },
  ].map((m) => ({ ...m, expect: m.expect as "fail" | "pass", inBinary, file }));
  return { treeFiles: [file], members };
}

/**
 * Rust: a module of canaries in every test binary (issue 19): a module file beside the package's
 * sources, and `#[cfg(test)] #[path = "…"] mod …;` appended to each crate root (the library, every
 * binary, every integration test), after its last line, so the ids and line numbers of the reviewed
 * code stay as they are. The roots' text is put back after the run.
 */
export async function cargoCanaries(ctx: CanaryContext, binaries: readonly TestBinary[]): Promise<CanaryResult> {
  const taken = new Set<string>();
  const treeFiles: string[] = [];
  const edited: { file: string; text: string }[] = [];
  const members: CanaryMember[] = [];
  const { word, right, wrong } = ctx.values;
  for (const binary of binaries) {
    const text = readTreeFile(ctx.treeDir, binary.root);
    if (text === null) continue;
    const srcDir = binary.dir === "" ? "src" : `${binary.dir}/src`;
    // Beside the package's sources (not in tests/ or src/bin/, where cargo would take it for a target of its own).
    const folder = await isFolder(ctx.treeDir, srcDir) && !/^(?:.*\/)?(?:tests|src\/bin|examples|benches)(?:\/|$)/.test(srcDir) ? srcDir : posix.dirname(binary.root);
    let file: string;
    let mod: string;
    do {
      file = await freshFile(ctx.treeDir, folder, (w) => `${w.join("_")}.rs`);
      mod = posix.basename(file, ".rs");
    } while (taken.has(mod) || new RegExp(`\\b${mod}\\b`).test(text));
    taken.add(mod);
    const [panics, assertEq, pass] = freshPhrases(3, taken).map((w) => w.join("_")) as [string, string, string];
    // Under nextest, the process's own end as only libtest's return reaches it (./cargo-end-mark.ts).
    const at = (p: string): string => (binary.dir === "" ? p : `${binary.dir}/${p}`);
    const manifest = readTreeFile(ctx.treeDir, at("Cargo.toml"));
    const rootManifest = binary.dir === "" ? manifest : readTreeFile(ctx.treeDir, "Cargo.toml");
    const hooked = /\bnextest\s+run\b/.test(ctx.command) && mayHook([text, manifest, rootManifest, readTreeFile(ctx.treeDir, ".cargo/config.toml"), readTreeFile(ctx.treeDir, ".cargo/config")]);
    const hook = hooked ? endHook(edition(manifest, rootManifest) >= 2024).text : "";
    const body = `#![allow(dead_code)]\n\nfn checksum(text: &str) -> usize {\n    text.chars().enumerate().map(|(i, c)| (i + 1) * (c as usize)).sum::<usize>() % 1009\n}\n\n`
      + `#[test]\nfn ${panics}() {\n    let got = checksum(${JSON.stringify(word)});\n    if got != ${wrong} {\n        panic!("expected ${wrong}, got {}", got);\n    }\n}\n\n`
      + `#[test]\nfn ${assertEq}() {\n    assert_eq!(checksum(${JSON.stringify(word)}), ${wrong});\n}\n\n`
      + `#[test]\nfn ${pass}() {\n    assert_eq!(checksum(${JSON.stringify(word)}), ${right});\n}\n${hook}`;
    await writeFile(join(ctx.treeDir, file), body, { flag: "wx" });
    const path = posix.relative(posix.dirname(binary.root), file);
    await writeFile(join(ctx.treeDir, binary.root), `${text}${text.endsWith("\n") ? "" : "\n"}${canaryTail(path, mod)}`);
    treeFiles.push(file);
    edited.push({ file: binary.root, text });
    const prefix = `${binary.crate}::${binary.target}`;
    const inBinary = { label: prefix, ids: `^${literally(prefix)}::` };
    members.push(
      { name: `${mod}::${panics}`, via: "rust panic!", expect: "fail", inBinary, file },
      { name: `${mod}::${assertEq}`, via: "rust assert_eq!", expect: "fail", inBinary, file },
      { name: `${mod}::${pass}`, via: "rust assert_eq!", expect: "pass", inBinary, file },
    );
  }
  return { treeFiles, edited, members };
}

/** A package's Rust edition: its own, or the workspace's when it inherits it. */
function edition(manifest: string | null, rootManifest: string | null): number {
  const own = /^\s*edition\s*=\s*["'](\d{4})["']/m.exec(manifest ?? "")?.[1];
  if (own !== undefined) return Number(own);
  const inherited = /^\s*edition(?:\.workspace\s*=\s*true|\s*=\s*\{\s*workspace\s*=\s*true)/m.test(manifest ?? "");
  return inherited ? Number(/^\[workspace\.package\][\s\S]*?^\s*edition\s*=\s*["'](\d{4})["']/m.exec(rootManifest ?? "")?.[1] ?? 2015) : 2015;
}

/** A module of a JVM build that gets a canary class: its folder ("" for the root project) and its JUnit. */
export interface JunitModule { folder: string; jupiter: boolean }

/**
 * Java (Maven, Gradle): a test class in each module's src/test/java, of the JUnit the module's build
 * names (Jupiter or 4), judged with that module's tests: the root project's ids have no `/` before
 * the `#`, a module's begin `<folder>/` (src/runners/jvm-ids.ts).
 */
export async function junitCanaries(ctx: CanaryContext, modules: readonly JunitModule[]): Promise<CanaryResult> {
  const taken = new Set<string>();
  const treeFiles: string[] = [];
  const members: CanaryMember[] = [];
  const { word, right, wrong } = ctx.values;
  const q = JSON.stringify(word);
  for (const { folder, jupiter } of modules) {
    const file = await freshFile(ctx.treeDir, posix.join(folder, "src/test/java"), (w) => `${camel(w)}Test.java`);
    const cls = file.slice(file.lastIndexOf("/") + 1, -".java".length);
    const [thrown, assertEquals, pass] = freshPhrases(3, taken).map((w) => { const c = camel(w); return c.charAt(0).toLowerCase() + c.slice(1); }) as [string, string, string];
    const test = jupiter ? "org.junit.jupiter.api.Test" : "org.junit.Test";
    const equals = jupiter ? "org.junit.jupiter.api.Assertions.assertEquals" : "org.junit.Assert.assertEquals";
    // Braces everywhere and the usual switches off: a build that runs Checkstyle on its test sources
    // (java-diff-utils: NeedBraces, in process-classes) must not fail because of the gate's class.
    const body = `// CHECKSTYLE:OFF\n@SuppressWarnings("all")\npublic class ${cls} {\n  private static int checksum(String text) {\n    int sum = 0;\n    for (int i = 0; i < text.length(); i++) {\n      sum += (i + 1) * text.charAt(i);\n    }\n    return sum % 1009;\n  }\n\n`
      + `  @${test}\n  public void ${thrown}() {\n    int got = checksum(${q});\n    if (got != ${wrong}) {\n      throw new AssertionError("expected ${wrong}, got " + got);\n    }\n  }\n\n`
      + `  @${test}\n  public void ${assertEquals}() {\n    ${equals}(${wrong}, checksum(${q}));\n  }\n\n`
      + `  @${test}\n  public void ${pass}() {\n    ${equals}(${right}, checksum(${q}));\n  }\n}\n`;
    await writeFile(join(ctx.treeDir, file), body, { flag: "wx" });
    treeFiles.push(file);
    // A JUnit error is one test's exception, not the end of the module's JVM.
    const inBinary = folder === ""
      ? { label: "the root project", ids: "^[^/#]*#", errorsAreFailures: true as const }
      : { label: `module ${folder}`, ids: `^${literally(folder)}/`, errorsAreFailures: true as const };
    members.push(...[
      { name: thrown, via: "java AssertionError", expect: "fail" as const }, { name: assertEquals, via: "junit assertEquals", expect: "fail" as const }, { name: pass, via: "junit assertEquals", expect: "pass" as const },
    ].map((m) => ({ ...m, inBinary, file })));
  }
  return { treeFiles, members };
}
