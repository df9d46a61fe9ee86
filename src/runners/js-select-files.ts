// Running only the PR's new test files (issue 22: its own runs, `head+new` and `base+new`) with the
// JavaScript runners. Two ways:
// - the gate's launchers (jest-run.cjs, vitest-run.cjs, mocha-run.cjs, tap-run.cjs) read the files
//   from $RANEX_SELECT_FILE when RANEX_SELECT_BY=file, and narrow the runner with its own parser
//   and file collection, so nothing runs that the command would not have run; a launcher that
//   cannot narrow its command (one that names its own test paths) refuses in `<list>.refused`;
// - a plain `node --test` or `vitest run` command gets the files as its arguments, when the
//   command's words can be read for certain (src/runners/command-words.ts).
// Either way the run must prove it (src/measure/select.ts `filesUnproven`).
import { statSync } from "node:fs";
import { join, posix } from "node:path";
import { optionNames, positionals, shellWord, simpleWords, unquote, type OptionShapes } from "./command-words.js";
import type { FileSelectContext, Selection } from "./types.js";

/** The selection through a launcher of the gate's own: the command unchanged, the files in the list. */
export function launcherFiles(command: string, common: Record<string, string>, how: string): Selection {
  return { command, env: { ...common, RANEX_SELECT_BY: "file" }, how };
}

/** The words after the launcher script in a command (`node "$RANEX_REPORTERS/<script>" ...`), or null. */
export function launcherArgs(command: string, script: string): string[] | null {
  const words = simpleWords(command);
  const at = words?.findIndex((w) => unquote(w).replace(/\$\{?RANEX_REPORTERS\}?\//, "") === script) ?? -1;
  return words === null || at === -1 ? null : words.slice(at + 1);
}

const JEST_OPTIONS: OptionShapes = {
  valued: new Set(["--config", "-c", "--rootDir", "--maxWorkers", "-w", "--testTimeout", "--coverageDirectory", "--cacheDirectory", "--reporters",
    "--testEnvironment", "--seed", "--shard", "--workerIdleMemoryLimit", "--outputFile", "--testNamePattern", "-t", "--maxConcurrency"]),
  flags: new Set(["--ci", "--runInBand", "-i", "--coverage", "--silent", "--verbose", "--detectOpenHandles", "--forceExit", "--no-cache",
    "--passWithNoTests", "--no-coverage", "--logHeapUsage", "--injectGlobals", "--errorOnDeprecated", "--randomize"]),
};
/** jest options by which a command chooses its test files itself: then it is not narrowed. */
const JEST_CHOOSES = new Set(["--testPathPattern", "--testPathPatterns", "--runTestsByPath", "--findRelatedTests", "--onlyChanged", "-o",
  "--changedSince", "--lastCommit", "--listTests", "--selectProjects", "--ignoreProjects", "--projects", "--watch", "--watchAll", "--testMatch", "--testRegex", "--roots"]);

/**
 * jest through the gate's launcher, whose command names no test paths of its own: the launcher
 * gives jest the files as anchored test path patterns, so jest's own configuration still decides
 * which of them are test files.
 */
export function jestFiles({ command, common }: FileSelectContext): Selection | null {
  const args = launcherArgs(command, "jest-run.cjs");
  if (args === null) return null;
  const found = positionals(args, JEST_OPTIONS);
  if (found === null || found.length > 0 || optionNames(args).some((o) => JEST_CHOOSES.has(o))) return null;
  return launcherFiles(command, common, "jest launcher, by test path pattern");
}

const JS_SCRIPT = /\.[cm]?js$/;

/** A path no runner collects by its defaults: in a dot folder or node_modules. */
const hiddenPath = (file: string): boolean => file.split("/").some((part) => part.startsWith(".") || part === "node_modules");

/**
 * Whether Node's test runner collects `file` by its defaults, found in the folders it searches: a
 * script in a `test` folder, or named test, test-*, *.test, *-test, *_test (Node 20; later Node's
 * globs say the same).
 */
export function nodeTestDefault(file: string): boolean {
  if (!JS_SCRIPT.test(file) || hiddenPath(file)) return false;
  const parts = file.split("/");
  const stem = (parts[parts.length - 1] as string).replace(JS_SCRIPT, "");
  return parts.slice(0, -1).includes("test") || /^test$|^test-.+|.+[.\-_]test$/.test(stem);
}

const NODE_OPTIONS: OptionShapes = {
  valued: new Set(["--test-reporter", "--test-reporter-destination", "--import", "--require", "-r", "--loader", "--experimental-loader",
    "--test-name-pattern", "--test-skip-pattern", "--test-concurrency", "--test-timeout", "--test-shard", "--conditions", "-C", "--env-file"]),
  flags: new Set(["--test", "--test-only", "--experimental-test-coverage", "--enable-source-maps", "--no-warnings", "--experimental-vm-modules",
    "--experimental-strip-types", "--experimental-transform-types", "--test-force-exit", "--trace-warnings", "--experimental-test-module-mocks"]),
};

const isDir = (treeDir: string, rel: string): boolean => {
  try {
    return statSync(join(treeDir, rel)).isDirectory();
  } catch {
    return false;
  }
};

/** Leading `NAME=value` words, then the program and its arguments. */
function program(words: readonly string[]): { at: number; name: string } | null {
  let at = 0;
  while (at < words.length && /^\w+=/.test(words[at] as string)) at++;
  const word = words[at];
  return word === undefined ? null : { at, name: posix.basename(unquote(word)) };
}

/**
 * `node --test` with the gate's JUnit reporter (Node's own names no file, so no selection could
 * prove itself): the files replace the command's own paths, each one a file the command itself
 * runs (named by it, or under a folder it names and collected there by Node's defaults).
 */
export function nodeTestFiles({ command, files, treeDir }: FileSelectContext): Selection | null {
  const words = simpleWords(command);
  const prog = words === null ? null : program(words);
  if (words === null || prog === null || !/^node(?:js)?$/.test(prog.name)) return null;
  const args = words.slice(prog.at + 1);
  if (!args.map(unquote).includes("--test") || !args.some((w) => w.includes("RANEX_NODE_REPORTER")) || args.map(unquote).includes("--")) return null;
  const found = positionals(args, NODE_OPTIONS);
  if (found === null) return null;
  const own = found.map((i) => unquote(args[i] as string).replace(/^\.\//, "").replace(/\/+$/, ""));
  if (own.some((p) => /[*?{[$]/.test(p) || p === "" || p.startsWith("/") || p.split("/").includes(".."))) return null;
  const runs = (file: string): boolean => own.length === 0
    ? nodeTestDefault(file)
    : own.some((p) => p === file || (p === "." ? nodeTestDefault(file) : isDir(treeDir, p) && file.startsWith(`${p}/`) && nodeTestDefault(file)));
  if (!files.every(runs)) return null;
  const kept = args.filter((_w, i) => !found.includes(i));
  return {
    command: [...words.slice(0, prog.at + 1), ...kept, ...files.map(shellWord)].join(" "),
    env: {}, how: "node --test, by file",
  };
}

const VITEST_OPTIONS: OptionShapes = {
  valued: new Set(["--reporter", "--outputFile", "--config", "-c", "--root", "-r", "--environment", "--pool", "--maxWorkers", "--minWorkers",
    "--testTimeout", "--hookTimeout", "--shard", "--project", "--mode", "--silent", "--testNamePattern", "-t", "--sequence.seed", "--retry", "--bail"]),
  flags: new Set(["run", "--run", "--passWithNoTests", "--globals", "--no-file-parallelism", "--allowOnly", "--no-color", "--coverage", "--typecheck", "--no-isolate", "--isolate", "--dangerouslyIgnoreUnhandledErrors", "--clearScreen=false"]),
};
/** vitest options by which a command chooses its files itself: then it is not narrowed. */
const VITEST_CHOOSES = new Set(["--dir", "--changed", "--related", "--include", "--exclude", "--workspace", "--watch", "-w"]);

/**
 * `vitest run`, the gate's launcher (which gives vitest the files as filters itself) or vitest's own
 * command (the files appended as its filters), when the command names no filters of its own:
 * vitest's filters only narrow what its configuration includes.
 */
export function vitestFiles({ command, files, common }: FileSelectContext, launched: boolean): Selection | null {
  const words = simpleWords(command);
  if (words === null || files.some((f) => f.includes(":"))) return null; // a filter `file:line` reads a colon as a line
  const vitestAt = words.findIndex((w) => /^vitest(?:\.m?js)?$/.test(posix.basename(unquote(w))));
  const args = launched ? launcherArgs(command, "vitest-run.cjs") : vitestAt === -1 ? null : words.slice(vitestAt + 1);
  if (args === null || unquote(args[0] ?? "") !== "run") return null;
  const found = positionals(args.slice(1), VITEST_OPTIONS);
  if (found === null || found.length > 0 || optionNames(args).some((o) => VITEST_CHOOSES.has(o))) return null;
  if (launched) return launcherFiles(command, common, "vitest launcher, by file filter");
  return { command: [...words, ...files.map(shellWord)].join(" "), env: {}, how: "vitest run, by file filter" };
}
