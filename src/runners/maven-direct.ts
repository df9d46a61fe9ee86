// tests.stable's repeats on a built Maven tree without Maven's start (issue 22). A selected repeat
// through Maven (`surefire:test@default-test -Dtest=...`) was a Maven start plus a test JVM, about
// 2.3 s of CPU on maven-reactor, of which the test JVM is a fifth: a warm judgment of that three-module
// build was about 2 T. Where the run would be the same, the repeat starts the gate's own JUnit Platform
// launcher (reporters/jvm/RanexRepeat.java, through reporters/maven-direct.sh) in a JVM of its own on the
// test class path Surefire used for the module in the run that built the tree: 0.5 s of CPU. It
// prints Maven's line for each class with a failed test before it writes the report, so Maven's
// console check (./maven-console.ts) reads it as it reads Maven's; and the report must still hold every
// selected id (src/measure/select.ts). The same run is the test JVM Surefire would fork, which the
// build's poms decide: the repeat goes direct only when nothing in them changes that JVM, its
// environment, or how Surefire runs the tests (an argLine, JaCoCo's agent, a forkCount, a provider of
// its own, a Surefire setting other than those below, a parent pom outside the tree the gate cannot
// read); the system properties the pom gives the fork are set by the launcher from the fork's report. Otherwise,
// or when the script finds it cannot stand for Surefire's run (exit 90, before or instead of any
// report), Maven runs the repeat as before. A direct repeat's outcome stands either way: a failure is
// never retried through Maven, which would give a flaky test a second chance.
import { posix } from "node:path";
import { mavenReactor } from "./jvm-modules.js";
import { readTreeFile } from "./tree-read.js";
import type { SelectContext, Selection } from "./types.js";

const PLAIN_ID = /^(?:([\w.@+-]+(?:\/[\w.@+-]+)*)\/)?([\w.]+)#(\w+)$/;

/**
 * The command's one Maven run, as `ranex init` writes it (through the gate's maven-run.sh or not):
 * the goal `test`, no option but these, nothing else around it.
 */
const SHAPE = /^(?:\w+=(?:"[^"$`\\]*"|'[^']*'|[^\s"'$`;&|()]*)\s+)*(?:sh\s+"\$RANEX_REPORTERS\/maven-run\.sh"\s+)?mvn((?:\s+[^\s;&|()<>`$]+|\s+-Dmaven\.repo\.local="\$PWD\/[^"$`\\]*")*)\s*$/;
const OPTIONS = /^(?:-o|-B|-q|-e|-fae|-ff|-nsu|--offline|--batch-mode|--quiet|-Dmaven\.repo\.local=.*|-Dmaven\.test\.redirectTestOutputToFile=true|-Dmaven\.test\.failure\.ignore=true|test)$/;

/** Whether the test command is one plain `mvn ... test`, whose Surefire run the gate's launcher can stand for. */
export function directCommand(command: string): boolean {
  const words = SHAPE.exec(command.trim())?.[1];
  if (words === undefined) return false;
  const list = words.trim().split(/\s+/).filter((w) => w !== "");
  return list.filter((w) => w === "test").length === 1 && list.every((w) => OPTIONS.test(w));
}

// What in a pom changes the test JVM Surefire forks or how it runs the tests. JaCoCo's prepare-agent
// sets `argLine` without the pom saying so; a provider of Surefire's own comes as its dependency.
const CHANGES_FORK = /argLine|jacoco|<(?:forkCount|forkMode|reuseForks|parallel|threadCount|enableAssertions|jvm|junitArtifactName|testNGArtifactName|surefire\.[\w.]+|maven\.surefire\.[\w.]+)>/;

// Surefire settings a direct repeat runs the same with: which classes a run takes (-Dtest overrides
// includes and excludes), how the report and the console say it, and the system properties the fork
// had, which the launcher sets from the report before any test runs.
const SAME_RUN = new Set(["includes", "excludes", "trimStackTrace", "redirectTestOutputToFile", "printSummary", "reportFormat", "useFile", "failIfNoTests", "testFailureIgnore", "systemPropertyVariables"]);

/** The names of the settings in a Surefire plugin block's <configuration>s (their bodies left out). */
function surefireSettings(plugin: string): string[] {
  const names: string[] = [];
  for (const config of plugin.match(/<configuration>[\s\S]*?<\/configuration>/g) ?? []) {
    let body = config.slice("<configuration>".length, -"</configuration>".length);
    // Each top-level element, its body skipped: <name ...>...</name> or <name/>.
    for (let m = /^\s*<([\w.-]+)(?:\s[^>]*)?(\/)?>/.exec(body); m !== null; m = /^\s*<([\w.-]+)(?:\s[^>]*)?(\/)?>/.exec(body)) {
      const name = m[1] ?? "";
      names.push(name);
      if (m[2] === "/") {
        body = body.slice(m[0].length);
        continue;
      }
      const end = body.indexOf(`</${name}>`, m[0].length);
      if (end < 0) return [...names, "?"];
      body = body.slice(end + name.length + 3);
    }
    if (body.trim() !== "") names.push("?");
  }
  return names;
}

function pomOf(dir: string): string {
  return dir === "" || dir === "." ? "pom.xml" : posix.join(dir, "pom.xml");
}

/**
 * Why the module's Surefire run may not be what the launcher does, or null when the module's pom and
 * every parent pom (each one in the tree) leave Surefire as it comes.
 */
export function whyNotDirect(treeDir: string, module: string): string | null {
  if (readTreeFile(treeDir, ".mvn/maven.config") !== null) return ".mvn/maven.config may add options to every run";
  let path = pomOf(module);
  for (let depth = 0; depth < 12; depth++) {
    const text = readTreeFile(treeDir, path);
    if (text === null) return `${path} could not be read`;
    const pom = text.replace(/<!--[\s\S]*?-->/g, "");
    if (CHANGES_FORK.test(pom)) return `${path} configures the test JVM or Surefire's run`;
    for (const plugin of pom.match(/<plugin>[\s\S]*?<\/plugin>/g) ?? []) {
      if (!/maven-surefire-plugin/.test(plugin)) continue;
      if (/<(?:dependencies|executions)\b/.test(plugin)) return `${path} gives Surefire a provider or an execution of its own`;
      const other = surefireSettings(plugin).find((name) => !SAME_RUN.has(name));
      if (other !== undefined) return `${path} configures Surefire's ${other}`;
    }
    const parent = /<parent>([\s\S]*?)<\/parent>/.exec(pom)?.[1];
    if (parent === undefined) return null;
    // The parent Maven reads: <relativePath> (default ../pom.xml), which must be in the tree and be that parent.
    const relative = /<relativePath\s*\/>|<relativePath>\s*([^<]*?)\s*<\/relativePath>/.exec(parent);
    const rel = relative === null ? "../pom.xml" : relative[1] ?? "";
    if (rel === "") return `${path}'s parent is not in the tree`;
    let next = posix.normalize(posix.join(posix.dirname(path), rel));
    if (!next.endsWith(".xml")) next = posix.join(next, "pom.xml");
    if (next.startsWith("../") || next === "..") return `${path}'s parent is outside the tree`;
    const artifact = /<artifactId>\s*([^<\s]+)\s*<\/artifactId>/.exec(parent)?.[1];
    const found = readTreeFile(treeDir, next);
    const own = found === null ? null : /<artifactId>\s*([^<\s]+)\s*<\/artifactId>/.exec(found.replace(/<!--[\s\S]*?-->/g, "").replace(/<parent>[\s\S]*?<\/parent>/, ""))?.[1];
    if (artifact === undefined || own !== artifact) return `${path}'s parent ${artifact ?? "?"} is not in the tree`;
    path = next;
  }
  return "the parent poms go too deep";
}

/**
 * The direct repeat in front of Maven's selected run (`maven`), or Maven's alone when the launcher
 * cannot stand for it: a tree not built yet, a command of another shape, ids of several modules or
 * not plain methods (a nested class, a parameterized invocation), a pom that changes Surefire's run.
 */
export function directFirst({ command, ids, treeDir, built }: SelectContext, maven: Selection): Selection {
  if (built !== true || treeDir === undefined || !directCommand(command)) return maven;
  const parsed = ids.map((id) => PLAIN_ID.exec(id));
  const modules = new Set(parsed.map((m) => m?.[1] ?? ""));
  if (parsed.some((m) => m === null) || modules.size !== 1) return maven;
  const module = [...modules][0] ?? "";
  const reactor = mavenReactor(treeDir);
  // The root's ids in a reactor run every module's tests: only a module's own can go direct.
  if (module === "" ? reactor !== null : reactor === null || !reactor.includes(module)) return maven;
  if (whyNotDirect(treeDir, module) !== null) return maven;
  const byClass = new Map<string, Set<string>>();
  for (const m of parsed) if (m?.[2] !== undefined && m[3] !== undefined) byClass.set(m[2], (byClass.get(m[2]) ?? new Set()).add(m[3]));
  const filter = [...byClass].sort(([a], [b]) => a.localeCompare(b)).map(([cls, methods]) => `${cls}#${[...methods].sort().join("+")}`).join(",");
  return {
    command: `sh "$RANEX_REPORTERS/maven-direct.sh" '${module}' '${filter}'; s=$?; [ "$s" = 90 ] || exit "$s"; ${maven.command}`,
    env: maven.env,
    how: `the gate's JUnit Platform launcher on Surefire's class path, else ${maven.how}`,
  };
}
