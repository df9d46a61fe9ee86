// The modules a JVM build really has, at any depth (issue 22): Maven's reactor is the `<modules>` of
// the root pom and, recursively, of each module's pom; Gradle's projects are what settings.gradle(.kts)
// `include`s. The canary goes into each of them (src/runners/jvm-canary.ts) and a selection names
// them to Maven (`-pl`, src/runners/maven-select.ts). A build that declares no list (a single
// project, or a settings script the gate cannot read) falls back to the folders one or two down
// that hold a build file.
import { readdirSync } from "node:fs";
import { join, posix } from "node:path";
import { readTreeFile } from "./tree-read.js";

/** A relative folder inside the tree, normalised, or null when it leaves the tree or is odd. */
function inside(from: string, rel: string): string | null {
  const joined = posix.normalize(posix.join(from, rel.trim().replace(/\\/g, "/"))).replace(/\/$/, "");
  if (joined === "." || joined === "") return "";
  if (joined.startsWith("../") || joined === ".." || joined.startsWith("/") || !/^[\w.@+-]+(?:\/[\w.@+-]+)*$/.test(joined)) return null;
  return joined;
}

const withoutComments = (xml: string): string => xml.replace(/<!--[\s\S]*?-->/g, "");

/**
 * Maven's reactor below the root: every `<module>` of the root pom and, recursively, of the modules'
 * poms (those in profiles too: a module that does not run leaves its canary unreached, which is
 * explained). Null when the root pom declares no modules.
 */
export function mavenReactor(treeDir: string): string[] | null {
  const found = new Set<string>();
  const visit = (folder: string, depth: number): void => {
    const pom = readTreeFile(treeDir, folder === "" ? "pom.xml" : `${folder}/pom.xml`);
    if (pom === null || depth > 12) return;
    for (const block of withoutComments(pom).matchAll(/<modules>([\s\S]*?)<\/modules>/g)) {
      for (const m of (block[1] ?? "").matchAll(/<module>([^<]+)<\/module>/g)) {
        // A module may name its pom file (`sub/pom-x.xml`): its folder is the module.
        const named = (m[1] ?? "").trim().replace(/\/[^/]*\.xml$/, "");
        const module = inside(folder, named);
        if (module === null || module === "" || found.has(module)) continue;
        found.add(module);
        visit(module, depth + 1);
      }
    }
  };
  visit("", 0);
  return found.size === 0 ? null : [...found].sort();
}

// A project settings moves: `project(':x').projectDir = file('libs/x')` (Groovy or Kotlin), or
// `= new File(settingsDir, 'libs/x')` / `= File(rootDir, "libs/x")`. Both resolve from the root.
const MOVED = /project\s*\(\s*["']:?([^"'$]+)["']\s*\)\s*\.projectDir\s*=\s*(?:file\s*\(\s*["']([^"'$]+)["']\s*\)|(?:new\s+)?(?:java\.io\.)?File\s*\(\s*(?:settingsDir|rootDir|rootProject\.projectDir)\s*,\s*["']([^"'$]+)["']\s*\))/g;

/**
 * Gradle's projects below the root, from `include` in settings.gradle(.kts): `include 'a', ':b:c'`,
 * `include("a")`, `include(":b:c")`; a project's folder is its path with `:` as `/` (Gradle's
 * default), or the folder settings moves it to (`project(':b').projectDir = file('libs/b')`; one
 * moved outside the tree is left out). Null when there is no settings script or it includes nothing the gate can read.
 */
export function gradleProjects(treeDir: string): string[] | null {
  const settings = readTreeFile(treeDir, "settings.gradle") ?? readTreeFile(treeDir, "settings.gradle.kts");
  if (settings === null) return null;
  const text = settings.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
  const moved = new Map<string, string | null>();
  for (const m of text.matchAll(MOVED)) moved.set((m[1] ?? "").replace(/:/g, "/"), inside("", m[2] ?? m[3] ?? ""));
  const found = new Set<string>();
  for (const line of text.matchAll(/(?:^|[\s;])include\s*\(?([^\n)]*)/g)) {
    for (const name of (line[1] ?? "").matchAll(/["']([^"'$]+)["']/g)) {
      const path = (name[1] ?? "").replace(/^:/, "").replace(/:/g, "/");
      const folder = moved.has(path) ? moved.get(path) ?? null : inside("", path);
      if (folder !== null && folder !== "") found.add(folder);
    }
  }
  return found.size === 0 ? null : [...found].sort();
}

/** Folders (relative, up to two down) holding a build file: the fallback when no list is declared. */
export function scannedModuleDirs(treeDir: string): string[] {
  const found: string[] = [];
  const visit = (rel: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(join(treeDir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    if (rel !== "" && entries.some((e) => e.isFile() && /^(?:pom\.xml|build\.gradle(?:\.kts)?)$/.test(e.name))) found.push(rel);
    // Real folders only: a symlink in the change's tree could lead anywhere.
    if (depth < 2) for (const e of entries) if (e.isDirectory() && !e.name.startsWith(".") && e.name !== "target" && e.name !== "build" && e.name !== "src") visit(rel === "" ? e.name : `${rel}/${e.name}`, depth + 1);
  };
  visit("", 0);
  return found.sort();
}

/** A build's modules below the root: its declared list (Maven's reactor, Gradle's settings), else the scan. */
export function jvmModuleDirs(treeDir: string, build?: "maven" | "gradle"): string[] {
  const maven = build === "gradle" ? null : mavenReactor(treeDir);
  const gradle = build === "maven" ? null : gradleProjects(treeDir);
  if (maven === null && gradle === null) return scannedModuleDirs(treeDir);
  return [...new Set([...maven ?? [], ...gradle ?? []])].sort();
}
