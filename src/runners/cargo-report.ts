// Reads `cargo test`'s human output (stdout and stderr together: cargo's "Running <source> (<binary>)"
// lines on stderr say which target each libtest block belongs to) into a TestReport. Ids are
// `<crate>::<target>::<path::to::test>`: the target is `lib`, `bin.<name>`, the integration test's
// name (tests/<name>.rs), or `doc`. A test's file is the module file its path leads to from the
// target's source file. Compile errors are load errors of the files rustc points at.
// In a workspace cargo prints each target's source relative to its own package (`Running tests/mod.rs`
// for crates/alpha/tests/mod.rs): the package is found among the tree's packages (issue 22, tried on
// RustCrypto/utils, where every member's tests had no file and two members' `tests/mod.rs` shared ids).
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join, posix } from "node:path";
import { readTreeFile } from "./tree-read.js";
import { workspaceMembers } from "./cargo-members.js";
import type { CaseResult, LoadErrorMessage, TestCaseResult, TestReport } from "../measure/report-types.js";
import type { ResolveFile } from "../measure/junit-paths.js";

/** Whether the text is cargo test's output: a libtest block or a compile error from cargo. */
export function claimsCargo(text: string): boolean {
  return /^\s+Running (?:unittests )?\S+ \(/m.test(text) || /^running \d+ tests?$/m.test(text)
    || /^error: could not compile `[^`]+`/m.test(text);
}

interface Target {
  crate: string;
  name: string;
  /** The target's source file in the tree, or null. */
  file: string | null;
}

interface Package {
  name: string;
  /** Its folder, relative to the tree (`` for the root). */
  dir: string;
  /** Its library target's name (`[lib] name`, else the package's with `-` as `_`): the unit-test binary's name. */
  lib: string;
}

const RESULT: Record<string, CaseResult> = { ok: "passed", FAILED: "failed", ignored: "skipped" };

/** `[package] name` of a Cargo.toml's text (a workspace root without a package has none). */
export function packageName(text: string | null): string | null {
  return tableKey(text, "package", "name");
}

function tableKey(text: string | null, table: string, key: string): string | null {
  if (text === null) return null;
  const section = new RegExp(`^\\[${table}\\][^\\S\\n]*$([\\s\\S]*?)(?=^\\[|(?![\\s\\S]))`, "m").exec(text)?.[1] ?? "";
  return new RegExp(`^\\s*${key}\\s*=\\s*"([^"]+)"`, "m").exec(section)?.[1] ?? null;
}

/** Package folders by crate name: the root package, those one or two folders down, and a workspace's members at any depth. */
export function packageDirs(treeDir: string): Map<string, string> {
  return new Map(packagesOf(treeDir).map((p) => [p.name, p.dir]));
}

function packagesOf(treeDir: string): Package[] {
  const found = new Map<string, Package>();
  const visit = (rel: string, depth: number): void => {
    const manifest = readTreeFile(treeDir, rel === "" ? "Cargo.toml" : `${rel}/Cargo.toml`);
    const name = packageName(manifest);
    if (name !== null && !found.has(name)) found.set(name, { name, dir: rel, lib: tableKey(manifest, "lib", "name") ?? name.replace(/-/g, "_") });
    if (depth === 2) return;
    let entries;
    try {
      entries = readdirSync(join(treeDir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    // Real folders only: a symlink in the change's tree could lead anywhere.
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith(".") && e.name !== "target") visit(rel === "" ? e.name : `${rel}/${e.name}`, depth + 1);
  };
  visit("", 0);
  // A workspace's members deeper than that, from its manifest (./cargo-members.ts).
  for (const dir of workspaceMembers(treeDir)) {
    const manifest = readTreeFile(treeDir, `${dir}/Cargo.toml`);
    const name = packageName(manifest);
    if (name !== null && !found.has(name)) found.set(name, { name, dir, lib: tableKey(manifest, "lib", "name") ?? name.replace(/-/g, "_") });
  }
  return [...found.values()];
}

/**
 * The package a `Running` line's source belongs to. cargo prints it relative to the package, so
 * every package holding that file is a candidate; the unit-test binary's name picks the library,
 * and cargo runs the targets package by package in name order, so among packages that all hold
 * `tests/mod.rs` the one being run is the current package or the next one by name.
 */
function packageOf(source: string, binary: string, unit: boolean, packages: readonly Package[], current: Package | null, resolve: ResolveFile): Package | null {
  const clean = source.replace(/^\.\//, "");
  let candidates = packages.filter((p) => resolve(p.dir === "" ? clean : `${p.dir}/${clean}`));
  if (unit && /(^|\/)src\/lib\.rs$/.test(clean)) {
    const named = candidates.filter((p) => p.lib === binary);
    if (named.length > 0) candidates = named;
  }
  if (candidates.length <= 1) return candidates[0] ?? null;
  if (current !== null && candidates.includes(current)) return current;
  const byName = [...candidates].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return byName.find((p) => current === null || p.name > current.name) ?? byName[0] ?? null;
}

function targetOf(line: string, packages: readonly Package[], current: Package | null, resolve: ResolveFile): Target & { pkg: Package | null } {
  // `Running unittests src/lib.rs (target/debug/deps/calc-1a2b)`, `Running tests/show.rs (target/debug/deps/show-3c4d)`
  const match = /^\s+Running (unittests )?(\S+) \((\S+)\)/.exec(line);
  const unit = match?.[1] !== undefined;
  const source = match?.[2] ?? "";
  const binary = (match?.[3] ?? "").split("/").pop()?.replace(/-[0-9a-f]{8,}$/, "") ?? "";
  const clean = source.replace(/^\.\//, "");
  // A path from the tree's root (a target outside its package's folder): the package holding it.
  const holding = resolve(clean) ? packages.filter((p) => p.dir !== "" && clean.startsWith(`${p.dir}/`)).sort((a, b) => b.dir.length - a.dir.length)[0] : undefined;
  const pkg = packageOf(clean, binary, unit, packages, current, resolve) ?? holding ?? null;
  const crate = pkg?.name ?? binary;
  const rel = pkg !== null && pkg === holding ? clean.slice(pkg.dir.length + 1) : clean;
  let name: string;
  if (unit && /^src\/lib\.rs$/.test(rel)) name = "lib";
  else if (unit) name = `bin.${/^src\/main\.rs$/.test(rel) ? crate : posix.basename(rel, ".rs") === "main" ? posix.basename(posix.dirname(rel)) : posix.basename(rel, ".rs")}`;
  else name = /^tests\//.test(rel) ? (posix.basename(rel, ".rs") === "main" ? posix.basename(posix.dirname(rel)) : posix.basename(rel, ".rs")) : binary;
  return { crate, name, file: pkg === null ? null : pkg.dir === "" ? rel : `${pkg.dir}/${rel}`, pkg };
}

/** The module file a test path leads to from its target's root file (`tests::adds` in src/lib.rs → src/tests.rs if there is one). */
export function moduleFile(root: string | null, path: readonly string[], resolve: ResolveFile): string | null {
  if (root === null) return null;
  const stem = posix.basename(root, ".rs");
  let base = ["lib", "main", "mod"].includes(stem) || posix.dirname(root).startsWith("tests") && stem === "main" ? posix.dirname(root) : `${posix.dirname(root)}/${stem}`;
  let found = root;
  for (const segment of path.slice(0, -1)) {
    const file = [`${base}/${segment}.rs`, `${base}/${segment}/mod.rs`].map((p) => p.replace(/^\.\//, "")).find((p) => resolve(p));
    if (file === undefined) break;
    found = file;
    base = `${base}/${segment}`;
  }
  return found;
}

function short(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > 300 ? `${trimmed.slice(0, 299)}…` : trimmed;
}

export function parseCargo(text: string, resolve: ResolveFile, treeDir: string): TestReport {
  const lines = text.split(/\r?\n/);
  const cases = new Map<string, TestCaseResult>();
  const duplicates = new Set<string>();
  const loadErrors = new Map<string, string>();
  const notes = new Set<string>();
  const packages = packagesOf(treeDir);
  let current: Package | null = null;
  let target: Target | null = null;
  let docCrate: string | null = null;
  let pendingError: string | null = null;
  const failures = new Map<string, string>();
  // Per libtest block: its tests, and whether cargo (the parent process, not the test binary) said
  // the binary failed. A block with failures whose binary cargo saw exit 0 was not what it printed.
  const blocks: { ids: string[]; failed: boolean; cargoSawFailure: boolean }[] = [];
  const block = (): (typeof blocks)[number] | undefined => blocks[blocks.length - 1];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (/^error: test failed, to rerun pass /.test(line)) {
      const last = block();
      if (last !== undefined) last.cargoSawFailure = true;
      continue;
    }
    if (/^\s+Running /.test(line)) {
      blocks.push({ ids: [], failed: false, cargoSawFailure: false });
      const found = targetOf(line, packages, current, resolve);
      target = found;
      current = found.pkg ?? current;
      docCrate = null;
      continue;
    }
    const doc = /^\s+Doc-tests (\S+)/.exec(line);
    if (doc?.[1] !== undefined) {
      docCrate = doc[1];
      target = null;
      continue;
    }
    // A compile error: `error[E0425]: ...` then ` --> tests/mul.rs:1:38`.
    if (/^error(?:\[E\d+\])?: /.test(line) && !/^error: (?:test failed|could not compile|\d+ targets failed|doctest failed)/.test(line)) {
      pendingError = short(line);
      continue;
    }
    const at = /^\s*--> (\S+?):\d+:\d+/.exec(line);
    if (at?.[1] !== undefined && pendingError !== null) {
      const file = at[1].replace(/^\.\//, "");
      if (resolve(file) && !loadErrors.has(file)) loadErrors.set(file, pendingError);
      pendingError = null;
      continue;
    }
    const uncompiled = /^error: could not compile `([^`]+)` \(([^)]*)\)/.exec(line);
    if (uncompiled !== null && loadErrors.size === 0) {
      loadErrors.set(`${uncompiled[1] ?? "?"} (${uncompiled[2] ?? ""})`, short(line));
      continue;
    }
    // `---- tests::fails stdout ----` then the panic message a few lines on.
    const failure = /^---- (.+) stdout ----$/.exec(line);
    if (failure?.[1] !== undefined) {
      const message = lines.slice(i + 1, i + 8).find((l) => l.trim() !== "" && !/^thread '.*' \(\d+\) panicked at|^thread '.*' panicked at/.test(l));
      const panicked = lines.slice(i + 1, i + 4).find((l) => /panicked at/.test(l));
      failures.set(`${target === null ? `doc:${docCrate ?? ""}` : `${target.crate}::${target.name}`}::${failure[1]}`, short(message ?? panicked ?? "failed"));
      continue;
    }
    // trybuild's own lines (bitflags' tests/compile.rs): a case that does not build as it should
    // prints `... error` or `... mismatch`, no libtest word: read as a failed test of its target,
    // so a trybuild case the owner commits red is red, not absent (issue 22).
    const trybuild = /^test (\S+\.rs)(?: \[should (?:pass|fail to compile)\])? \.\.\. (ok|error|mismatch)$/.exec(line);
    if (trybuild?.[1] !== undefined && trybuild[2] !== "ok" && target !== null) failures.set(`${target.crate}::${target.name}::${trybuild[1]}`, `trybuild: ${trybuild[2]}`);
    const test = trybuild === null ? /^test (.+?) \.\.\. (ok|FAILED|ignored)(?:, .*)?$/.exec(line)
      : [line, trybuild[1], trybuild[2] === "ok" ? "ok" : "FAILED"];
    if (test?.[1] === undefined || test[2] === undefined) continue;
    const path = test[1];
    const result = RESULT[test[2]] ?? "errored";
    let id: string;
    let file: string | null;
    if (target !== null) {
      id = `${target.crate}::${target.name}::${path}`;
      file = moduleFile(target.file, path.split("::"), resolve);
    } else if (docCrate !== null) {
      id = `${docCrate}::doc::${path}`;
      const source = /^(\S+\.rs) - /.exec(path)?.[1];
      file = source !== undefined && resolve(source) ? source : null;
    } else {
      notes.add("some tests were reported before any `Running` line: they name no target (was stderr left out of the report?)");
      id = `(unknown)::${path}`;
      file = null;
    }
    if (cases.has(id)) duplicates.add(id);
    cases.set(id, { id, file, name: path, result });
    const last = target !== null ? block() : undefined;
    if (last !== undefined) {
      last.ids.push(id);
      if (result === "failed") last.failed = true;
    }
  }
  // Issue 19: code under test that prints a forged `test x ... ok` and ends its binary with exit 0.
  // Its own passes cannot be believed: errored, so the run is never read as all passed.
  const forged: string[] = [];
  for (const b of blocks) {
    if (!b.failed || b.cargoSawFailure) continue;
    forged.push(`a test binary (${b.ids[0]?.split("::").slice(0, 2).join("::") ?? "?"}) printed failed tests but exited 0: cargo did not see it fail`);
    for (const id of b.ids) {
      const c = cases.get(id);
      if (c?.result === "passed") cases.set(id, { ...c, result: "errored", message: "its test binary exited 0 although it reported failed tests: what it printed cannot be believed" });
    }
    notes.add("a test binary reported failed tests but exited 0 (cargo did not see it fail): its passes were read as errored");
  }
  for (const [key, message] of failures) {
    const id = key.startsWith("doc:") ? `${key.slice(4, key.indexOf("::"))}::doc::${key.slice(key.indexOf("::") + 2)}` : key;
    const found = cases.get(id);
    if (found !== undefined && found.result === "failed") cases.set(id, { ...found, message });
  }
  const renamed = docTestsWithoutLines([...cases.values()]);
  const messages: LoadErrorMessage[] = [...loadErrors].sort(([a], [b]) => a.localeCompare(b)).map(([file, message]) => ({ file, message }));
  return {
    cases: [...cases.values()].map((c) => ({ ...c, ...renamed.get(c.id) })),
    digest: `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`,
    duplicates: [...duplicates].map((id) => renamed.get(id)?.id ?? id).sort(),
    loadErrors: [...loadErrors.keys()].sort(),
    ...(messages.length > 0 ? { loadErrorMessages: messages } : {}),
    notes: [...notes],
    ...(forged.length > 0 ? { contradictions: forged } : {}),
  };
}

/**
 * rustdoc names a doc-test by its line (`src/lib.rs - add (line 12)`), so a line added above it (a fix
 * in the same file) would make it vanish on the head and a new test appear. Its id drops the line:
 * the first example of an item keeps the bare name, later ones (in line order) get ` #2`, ` #3`.
 * Returns the new id and name of every doc-test whose name has a line, by its old id.
 */
function docTestsWithoutLines(cases: readonly TestCaseResult[]): Map<string, { id: string; name: string }> {
  const LINE = / \(line (\d+)\)/;
  const line = (c: TestCaseResult): number => Number(LINE.exec(c.name)?.[1] ?? 0);
  const byItem = new Map<string, TestCaseResult[]>();
  for (const c of cases) {
    if (!c.id.includes("::doc::") || !LINE.test(c.name)) continue;
    const item = c.id.replace(LINE, "");
    byItem.set(item, [...byItem.get(item) ?? [], c]);
  }
  const renamed = new Map<string, { id: string; name: string }>();
  for (const group of byItem.values()) {
    [...group].sort((a, b) => line(a) - line(b)).forEach((c, i) => {
      const suffix = i === 0 ? "" : ` #${i + 1}`;
      renamed.set(c.id, { id: `${c.id.replace(LINE, "")}${suffix}`, name: `${c.name.replace(LINE, "")}${suffix}` });
    });
  }
  return renamed;
}
