// Running only some tests with Maven (tests.stable's repeats, diff.needed's mutants) at the cost of
// those tests, not of the build (issue 22: a warm judgment of java-diff-utils, two modules, was 1.6 T
// because each repeat built the whole reactor again). Three narrowings, each only where it holds:
//   - `-Dtest='pkg.Class#a+b'`: Surefire runs only the selected methods;
//   - `-pl <modules>`: only the modules whose tests are selected (the ids' `<module>/` prefixes, which
//     are folders, as -pl takes them), with `-am` when one of them depends on another module of the
//     reactor (offline, a sibling's SNAPSHOT is in no repository: it must be built in the same run);
//   - `surefire:test@default-test` in place of the `test` phase when the tree was already built by a
//     run of the same command (the main run, or an earlier repeat on that tree): Maven's compile and
//     resources steps cost about half of a selected run's CPU even when nothing changed (7.3 s against
//     3.4 s of CPU on java-diff-utils). `@default-test` is the execution the `test` phase runs, with
//     the pom's configuration of it (an argLine, system properties); a test another execution runs
//     is not in the report, and the whole suite runs. Not with `-am` (Maven 3 resolves a sibling from the reactor only when its
//     compile phase runs in the same build), and only for a command whose one goal is `test`.
// A selection that does not take effect (a module the ids name is not in the reactor, a class not
// built) leaves the selected ids out of the report, and the gate runs the whole suite
// (src/measure/select.ts `selectionUnproven`).
import { posix } from "node:path";
import { mavenReactor } from "./jvm-modules.js";
import { directFirst } from "./maven-direct.js";
import { readTreeFile } from "./tree-read.js";
import type { SelectContext, Selection } from "./types.js";

const ID = /^(?:([\w.@+-]+(?:\/[\w.@+-]+)*)\/)?([\w.]+)#(\w+)/;

/** The mvn segment of the command (from `mvn` to the next `;`, `&`, `|`), its words split on blanks. */
function mvnWords(command: string): string[] | null {
  const segment = /(?:^|[\s;&|(/])mvnw?\b([^;&|]*)/.exec(command)?.[1];
  return segment === undefined ? null : segment.trim().split(/\s+/).filter((w) => w !== "");
}

/** Whether the command's Maven run has `test` as its only goal and no option that takes a separate value. */
export function onlyTestGoal(command: string): boolean {
  const words = mvnWords(command);
  if (words === null) return false;
  // -pl, -f, -P, -s, -T, -rf ... take their value as the next word: the gate does not guess which word is a goal then.
  if (words.some((w) => /^-[a-zA-Z]{1,3}$/.test(w) && !/^-(?:o|B|q|e|X|U|N|fae|ff|fn|nsu|am|amd|C|c)$/.test(w))) return false;
  const goals = words.filter((w) => !w.startsWith("-") && !w.startsWith("'") && !w.startsWith('"'));
  return goals.length === 1 && goals[0] === "test";
}

/** A module's own artifactId and every artifactId it names outside its `<parent>`. */
function artifactsOf(pom: string): { own: string | null; named: Set<string> } {
  const body = pom.replace(/<!--[\s\S]*?-->/g, "").replace(/<parent>[\s\S]*?<\/parent>/, "");
  const all = [...body.matchAll(/<artifactId>\s*([^<\s]+)\s*<\/artifactId>/g)].map((m) => m[1] ?? "");
  return { own: all[0] ?? null, named: new Set(all.slice(1)) };
}

/**
 * `-pl` for the modules the ids name, with `-am` when one of them names another reactor module's
 * artifactId (a dependency: conservative, a plugin's or a managed one counts too). Null when an id
 * has no module (the root project's tests) or a module is not in the reactor: the whole reactor runs.
 */
export function projectList(treeDir: string, ids: readonly string[]): { modules: string[]; alsoMake: boolean } | null {
  const modules = new Set<string>();
  for (const id of ids) {
    const module = ID.exec(id)?.[1];
    if (module === undefined) return null;
    modules.add(module);
  }
  const reactor = mavenReactor(treeDir);
  if (reactor === null || [...modules].some((m) => !reactor.includes(m))) return null;
  const ownIds = new Map<string, string>();
  for (const module of reactor) {
    const own = artifactsOf(readTreeFile(treeDir, posix.join(module, "pom.xml")) ?? "").own;
    if (own !== null) ownIds.set(own, module);
  }
  const alsoMake = [...modules].some((module) => {
    const pom = readTreeFile(treeDir, posix.join(module, "pom.xml"));
    if (pom === null) return true;
    const { named } = artifactsOf(pom);
    return [...named].some((a) => ownIds.has(a) && ownIds.get(a) !== module);
  });
  return { modules: [...modules].sort(), alsoMake };
}

/** `mvn -Dtest=...` (with `-pl`, `-am`, `surefire:test` where they hold) for `ids`, or null. */
export function mavenSelect(ctx: SelectContext, canSelect: (command: string) => boolean): Selection | null {
  const { command, ids, treeDir, built } = ctx;
  if (!canSelect(command)) return null;
  const byClass = new Map<string, Set<string>>();
  for (const id of ids) {
    const match = ID.exec(id);
    // Nested classes and odd names run the whole suite.
    if (match?.[2] === undefined || match[3] === undefined) return null;
    byClass.set(match[2], (byClass.get(match[2]) ?? new Set()).add(match[3]));
  }
  if (byClass.size === 0) return null;
  const filter = [...byClass].sort(([a], [b]) => a.localeCompare(b)).map(([cls, methods]) => `${cls}#${[...methods].sort().join("+")}`).join(",");
  const plain = onlyTestGoal(command);
  const list = plain && treeDir !== undefined ? projectList(treeDir, ids) : null;
  const pl = list === null ? "" : ` -pl '${list.modules.join(",")}'${list.alsoMake ? " -am" : ""}`;
  // A single-module build, or modules that need no sibling built in the same run.
  const goalOnly = plain && built === true && treeDir !== undefined && (list === null ? mavenReactor(treeDir) === null : !list.alsoMake);
  let selected = command.replace(/(^|[\s;&|(/])(mvnw?)\b/, (_m, before: string, mvn: string) => `${before}${mvn} -Dtest='${filter}' -Dsurefire.failIfNoSpecifiedTests=false${pl}`);
  if (goalOnly) selected = selected.replace(/((?:^|[\s;&|(/])mvnw?\b[^;&|]*\s)test(?=\s|$|[;&|)])/, (_m, before: string) => `${before}surefire:test@default-test`);
  const how = ["mvn -Dtest", ...list === null ? [] : [`-pl${list.alsoMake ? " -am" : ""}`], ...goalOnly ? ["surefire:test@default-test on the built tree"] : []].join(", ");
  // On a built tree, the gate's launcher without Maven's start where it stands for Surefire's run (./maven-direct.ts).
  return directFirst(ctx, { command: selected, env: {}, how });
}
