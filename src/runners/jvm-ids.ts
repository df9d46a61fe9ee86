// Test ids of the JVM builds (Maven Surefire, Gradle): `<class>[$Inner]#<method>` for the root
// project's tests, `<module>/<class>[$Inner]#<method>` for a module's (`core/ex.CalcTest#adds`).
// Two modules may each have an `ex.CalcTest`: the module keeps their ids and files apart, and each
// module's canary is judged with that module's own tests (issues 19 and 22). reporters/junit-merge.sh
// puts a module's reports inside a suite named `ranex-module=<folder>` (its `/` written `%2F`); the
// JUnit reader keeps that name as a part of the id, which is read here and becomes the prefix.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { ResolveFile } from "../measure/junit-paths.js";
import type { TestReport } from "../measure/report-types.js";
import { jvmModuleDirs } from "./jvm-modules.js";

const MARKER = /^ranex-module=(.+)$/;
const LANGUAGES = [["java", "java"], ["kotlin", "kt"], ["groovy", "groovy"], ["scala", "scala"]] as const;

/** A module folder as the merge wrote it, or null when it is not a plain relative folder. */
function moduleOf(part: string): string | null {
  const folder = MARKER.exec(part)?.[1]?.replace(/%2F/g, "/").replace(/%25/g, "%");
  if (folder === undefined || !/^[\w.@+-]+(?:\/[\w.@+-]+)*$/.test(folder) || folder.split("/").some((p) => p === "." || p === "..")) return null;
  return folder;
}

/**
 * The folders under a module's `src/test` that may hold test sources: the languages' own first, then
 * any other (`src/test/java11`, which jhy/jsoup adds as a test source root with build-helper: 111 of
 * its tests had no file, so no PR's new test class there could become a target).
 */
function testRoots(treeDir: string, module: string): string[] {
  let others: string[] = [];
  try {
    others = readdirSync(join(treeDir, module, "src", "test"), { withFileTypes: true })
      .filter((e) => e.isDirectory() && /^[\w.-]+$/.test(e.name) && e.name !== "resources").map((e) => e.name).sort();
  } catch {
    // no src/test: the languages' folders only
  }
  return [...new Set([...LANGUAGES.map(([lang]) => lang), ...others])];
}

/** The test sources of `className` in these modules (`core/src/test/java/ex/CoreTest.java`) that exist. */
function sourcesIn(className: string, modules: readonly string[], tree: { treeDir: string; resolve: ResolveFile }): string[] {
  const path = (className.split("$")[0] ?? "").replace(/\./g, "/");
  return modules.flatMap((m) => testRoots(tree.treeDir, m).flatMap((root) => LANGUAGES.map(([, ext]) => `${m === "" ? "" : `${m}/`}src/test/${root}/${path}.${ext}`)))
    .filter((f) => tree.resolve(f));
}

/** Surefire ids from the JUnit reader's `<file>::<Inner>::<name>`: `[<module>/]<class>[$Inner]#<name>`. */
export function surefireIds(report: TestReport, tree?: { treeDir: string; resolve: ResolveFile }): TestReport {
  let modules: string[] | null = null;
  const cases = report.cases.map((c) => {
    const parts = c.id.split("::");
    const name = parts.pop() ?? c.name;
    const head = parts.shift() ?? "";
    // The merge's suite is the outermost: the first marker is the module (a report can nest more).
    const module = parts.filter((part) => MARKER.test(part)).map(moduleOf)[0] ?? null;
    const rest = parts.filter((part) => !MARKER.test(part));
    const source = /^(?:.*\/)?src\/test\/(?:java|kotlin|groovy|scala)\/(.+)\.(?:java|kt|groovy|scala)$/.exec(head)?.[1];
    const className = source !== undefined ? source.replace(/\//g, ".") : head;
    // Surefire names a suite after the class it ran (`com.example.CalcTest$Inner`): no part of a test's name.
    const inner = rest.filter((part) => !part.includes(".")).flatMap((part) => part.split("$"));
    const id = `${module === null ? "" : `${module}/`}${[className, ...inner].join("$")}#${name}`;
    if (tree === undefined || !/^[\w.$]+$/.test(className)) return { ...c, id };
    if (module !== null) {
      // The reader may have found a same-named class of the root project: the module's own source is the file.
      const file = c.file?.startsWith(`${module}/`) === true ? c.file : sourcesIn(className, [module], tree)[0] ?? null;
      return { ...c, id, file };
    }
    if (c.file !== null) return { ...c, id };
    // A report the gate's merge did not write: a module's class is found when one module alone has it.
    modules ??= [...new Set(["", ...jvmModuleDirs(tree.treeDir)])];
    const found = sourcesIn(className, modules, tree);
    return { ...c, id, file: found.length === 1 ? found[0] ?? null : null };
  });
  const rename = new Map(report.cases.map((c, i) => [c.id, cases[i]?.id ?? c.id]));
  return { ...report, cases, duplicates: report.duplicates.map((id) => rename.get(id) ?? id) };
}
