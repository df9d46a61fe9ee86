// The test binaries of a Cargo tree, as cargo lays targets out (issue 19): every package (the root's
// and a workspace's members, one or two folders down), and in each its library, its binaries and its
// integration tests, each of which `cargo test` builds into a test binary of its own. The canary goes
// into every one of them (./canary-compiled.ts), so code that forges one binary's output, or ends it
// early, meets a canary in the same process.
import { readdirSync } from "node:fs";
import { join, posix } from "node:path";
import { packageDirs } from "./cargo-report.js";
import { readTreeFile } from "./tree-read.js";

/** One test binary: its crate root in the tree, and its ids' prefix (`<crate>::<target>`, as cargo-report.ts names it). */
export interface TestBinary {
  root: string;
  crate: string;
  target: string;
  /** The package's folder (`` for the tree's root). */
  dir: string;
}

interface Section { kind: string; body: string }

/** `[lib]`, `[[bin]]`, `[[test]]` sections of a manifest, with their text. */
function sections(manifest: string): Section[] {
  const out: Section[] = [];
  for (const m of manifest.matchAll(/^\[(\[)?(lib|bin|test)\]?\][^\S\n]*$([\s\S]*?)(?=^\[|(?![\s\S]))/gm)) out.push({ kind: m[2] ?? "", body: m[3] ?? "" });
  return out;
}

const field = (body: string, key: string): string | null => new RegExp(`^\\s*${key}\\s*=\\s*"([^"\\n]+)"`, "m").exec(body)?.[1] ?? null;
const off = (body: string, key: string): boolean => new RegExp(`^\\s*${key}\\s*=\\s*false\\b`, "m").test(body);

function files(treeDir: string, rel: string): { name: string; dir: boolean }[] {
  try {
    return readdirSync(join(treeDir, rel), { withFileTypes: true }).map((e) => ({ name: e.name, dir: e.isDirectory() })).sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return [];
  }
}

/** The test binaries `cargo test` builds for the package in `dir`, with libtest as their harness. */
function packageBinaries(treeDir: string, crate: string, dir: string): TestBinary[] {
  const at = (p: string): string => (dir === "" ? p : `${dir}/${p}`);
  const manifest = readTreeFile(treeDir, at("Cargo.toml")) ?? "";
  const exists = (p: string): boolean => readTreeFile(treeDir, at(p)) !== null;
  const found = new Map<string, TestBinary>();
  const add = (root: string, target: string): void => {
    if (!found.has(root) && exists(root)) found.set(root, { root: at(root), crate, target, dir });
  };
  const declared = sections(manifest);
  const skipped = new Set<string>();
  for (const s of declared) {
    const path = field(s.body, "path");
    const name = field(s.body, "name");
    const noTests = off(s.body, "test") || off(s.body, "harness");
    if (s.kind === "lib") {
      if (noTests) skipped.add(path ?? "src/lib.rs");
      else add(path ?? "src/lib.rs", "lib");
    } else if (name !== null) {
      const root = path ?? (s.kind === "bin" ? (name === crate ? "src/main.rs" : `src/bin/${name}.rs`) : `tests/${name}.rs`);
      if (noTests) skipped.add(root);
      else add(root, s.kind === "bin" ? `bin.${name}` : posix.basename(root, ".rs") === "main" ? posix.basename(posix.dirname(root)) : posix.basename(root, ".rs"));
    }
  }
  const auto = (key: string): boolean => !new RegExp(`^\\s*${key}\\s*=\\s*false\\b`, "m").test(manifest);
  const unless = (root: string, target: string): void => {
    if (!skipped.has(root)) add(root, target);
  };
  if (!declared.some((s) => s.kind === "lib")) unless("src/lib.rs", "lib");
  if (auto("autobins")) {
    unless("src/main.rs", `bin.${crate}`);
    for (const e of files(treeDir, at("src/bin"))) {
      if (!e.dir && e.name.endsWith(".rs")) unless(`src/bin/${e.name}`, `bin.${e.name.slice(0, -3)}`);
      else if (e.dir) unless(`src/bin/${e.name}/main.rs`, `bin.${e.name}`);
    }
  }
  if (auto("autotests")) {
    for (const e of files(treeDir, at("tests"))) {
      if (!e.dir && e.name.endsWith(".rs")) unless(`tests/${e.name}`, e.name.slice(0, -3));
      else if (e.dir) unless(`tests/${e.name}/main.rs`, e.name);
    }
  }
  return [...found.values()];
}

/** Every test binary of the tree's packages, by crate root. */
export function testBinaries(treeDir: string): TestBinary[] {
  return [...packageDirs(treeDir)].flatMap(([crate, dir]) => packageBinaries(treeDir, crate, dir));
}
