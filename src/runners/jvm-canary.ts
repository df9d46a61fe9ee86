// Where the JVM builds get their canary (issue 19): a test class in the `src/test/java` of every module
// whose tests run, not only the root's. Surefire and Gradle run each module's tests in a JVM of their
// own (a fork per module), so code under test in one module that forges its module's results (a
// shutdown hook that rewrites its reports, an exit, a neutered assertion) meets the canary compiled
// into that module, and the canary is judged with that module's tests (`<module>/...` ids,
// src/runners/jvm-ids.ts), as Go's are per package and Rust's per test binary.
import { lstatSync } from "node:fs";
import { posix } from "node:path";
import { junitCanaries, type JunitModule } from "./canary-compiled.js";
import { jvmModuleDirs } from "./jvm-modules.js";
import { readTreeFile } from "./tree-read.js";
import type { CanaryContext, CanaryResult } from "./types.js";

type Build = "maven" | "gradle";

const BUILD_FILES: Record<Build, readonly string[]> = {
  maven: ["pom.xml"],
  gradle: ["build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle/libs.versions.toml"],
};

const OWN_BUILD_FILE: Record<Build, readonly string[]> = { maven: ["pom.xml"], gradle: ["build.gradle", "build.gradle.kts"] };

// A pom that chooses its tests itself may leave a class named like the canary out: no canary there.
const OWN_CHOICE = /<(?:includes|includesFile|test|testSourceDirectory)>/;

// Not junit-read's treeResolver: importing it from here would close an import cycle through the runner registry.
function isFolder(treeDir: string, rel: string): boolean {
  try {
    return lstatSync(posix.join(treeDir, rel)).isDirectory();
  } catch {
    return false;
  }
}

/** Which JUnit the build files name: Jupiter, 4, or neither (TestNG, Spock: no canary). */
export function junitOf(texts: readonly string[], build: Build): "jupiter" | "junit4" | null {
  const all = texts.join("\n");
  if (/junit-jupiter|useJUnitPlatform/.test(all)) return "jupiter";
  if (build === "maven" ? /<artifactId>junit<\/artifactId>/.test(all) : /['"]junit:junit:|junit\s*=\s*\{?[^\n]*["']junit:junit|group\s*=\s*["']junit["']/.test(all)) return "junit4";
  return null;
}

/** The build files of a module and of every folder above it up to the root (a parent pom, the root build script). */
function buildTexts(treeDir: string, module: string, build: Build): string[] {
  const folders = [""];
  for (const part of module === "" ? [] : module.split("/")) folders.push(posix.join(folders.at(-1) ?? "", part));
  return folders.flatMap((folder) => BUILD_FILES[build].map((f) => readTreeFile(treeDir, folder === "" ? f : `${folder}/${f}`) ?? ""));
}

/**
 * A canary class in each module (the root project included, and every module of the reactor or the
 * settings at any depth: src/runners/jvm-modules.ts) that has a src/test/java folder and names JUnit.
 */
export async function jvmCanaries(ctx: CanaryContext, build: Build): Promise<CanaryResult> {
  const modules: JunitModule[] = [];
  const skipped: string[] = [];
  for (const folder of ["", ...jvmModuleDirs(ctx.treeDir, build)]) {
    const name = folder === "" ? "the root project" : folder;
    if (!isFolder(ctx.treeDir, posix.join(folder, "src/test/java"))) continue;
    // A folder of the other build's (a pom.xml beside a Gradle build) is not one of this build's modules.
    if (folder !== "" && !OWN_BUILD_FILE[build].some((f) => readTreeFile(ctx.treeDir, `${folder}/${f}`) !== null)) continue;
    const texts = buildTexts(ctx.treeDir, folder, build);
    const junit = junitOf(texts, build);
    if (junit === null) skipped.push(`${name} (its build names neither junit-jupiter nor ${build === "maven" ? "junit" : "junit:junit"}, so the gate cannot write a canary test class)`);
    else if (build === "maven" && OWN_CHOICE.test(texts.join("\n"))) skipped.push(`${name} (its pom chooses its own tests)`);
    else modules.push({ folder, jupiter: junit === "jupiter" });
  }
  if (modules.length === 0) {
    const why = skipped.length > 0 ? skipped.join("; ") : "no module has a src/test/java folder";
    return { note: `${build}: no canary test class: ${why}` };
  }
  const placed = await junitCanaries(ctx, modules);
  return skipped.length === 0 ? placed : { ...placed, notes: skipped.map((s) => `${build}: no canary in ${s}`) };
}
