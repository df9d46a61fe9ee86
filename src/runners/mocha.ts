// mocha: through the gate's launcher (reporters/mocha-run.cjs: mocha-junit-reporter, each suite with
// its file). The canary is a test file of the gate's own, with a fresh name beside one of the tree's
// test files, failing through mocha's own assertion path (issues 22 and 19). Selection: only the PR's new test
// files (its own runs), through the launcher.
import { randomBytes, randomInt } from "node:crypto";
import { lstat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { mochaGuard } from "./mocha-guard.js";
import { detectNode, missingNote, NODE_KEY_FILES, WHOLE_SUITE_NOTE } from "./node-package.js";
import { fileWords, phrases, titleOf } from "../measure/canary-names.js";
import { JS_TEST_FILE, testFilesIn } from "../measure/canary-place.js";
import { quote } from "./tap-launch.js";
import picomatch from "picomatch";
import { launcherArgs, launcherFiles } from "./js-select-files.js";
import { lastStep, unquote } from "./command-words.js";
import type { CanaryContext, Runner } from "./types.js";

/** Whether a test command runs mocha through the gate's launcher, which takes the canary. */
export function runsGateMocha(command: string): boolean {
  return /(?:^|\s)node\s+"?\$\{?RANEX_REPORTERS\}?\/mocha-run\.cjs"?(?:\s|$)/.test(command);
}

// mocha's options that name a reporter or watch: the launcher names its own reporter, and a run must end.
const DROPPED_WITH_VALUE = /^(?:--reporter|-R|--reporter-options?|-O)$/;
const DROPPED = /^(?:--reporter(?:-options?)?=|--watch$|-w$)/;

/**
 * What the owner's test script gives mocha (`mocha 'src/**\/*.spec.js' --timeout 5000`), for the
 * launcher: its spec (without one, mocha's default ./test finds nothing there) and options, less
 * the reporter and watch options. Empty when the script names nothing after mocha.
 */
export function mochaArgs(script: string): string[] {
  const pattern = /(?:^|[\s/])mocha(?=\s|$)/;
  const step = script.split(/\s*(?:&&|\|\||;)\s*/).find((s) => pattern.test(s)) ?? "";
  const m = pattern.exec(step);
  if (m === null) return [];
  // A pipe into a pretty-printer or a redirect ends what mocha is given.
  const own = step.slice(m.index + m[0].length).split(/\s(?:\|(?!\|)|>)/)[0] ?? "";
  const words = (own.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/^(['"])(.*)\1$/, "$2"));
  const args: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] as string;
    if (DROPPED_WITH_VALUE.test(word)) i += 1;
    else if (!DROPPED.test(word)) args.push(word);
  }
  return args;
}

// The family through mocha's own assertion path: a plain throw, node:assert strict and legacy equality,
// and one that must pass; each computes the checksum of a word (src/measure/canary.ts). node:assert
// is asked for when each test runs, as the module object the tree's code would change (`.default`:
// an ES namespace's named exports do not follow a change to the module), by a dynamic import that
// works in CommonJS and ES module files alike. The checksum is written out in each test, whose
// callback parameters a type checker infers (`// @ts-nocheck` for a TypeScript neighbour all the same).
function canaryFile(v: CanaryContext["values"], names: [string, string, string, string, string], guard: string): string {
  const q = JSON.stringify;
  const [raise, strict, legacy, pass, registered] = names.map((n) => q(n)) as [string, string, string, string, string];
  const sum = `[...${q(v.word)}].reduce((sum, ch, i) => sum + (i + 1) * ch.charCodeAt(0), 0) % 1009`;
  return `// @ts-nocheck
it(${raise}, async function () {
  const got = ${sum};
  if (got !== ${v.wrong}) throw new Error("expected ${v.wrong}, got " + got);
});
it(${strict}, async function () { (await import("node:assert")).default.strict.equal(${sum}, ${v.wrong}); });
it(${legacy}, async function () { (await import("node:assert")).default.equal(${sum}, ${v.wrong}); });
it(${pass}, async function () { (await import("node:assert/strict")).default.equal(${sum}, ${v.right}); });
it(${registered}, async function () { const seen = (await import(${q(guard)})).default.check(); if (seen !== null) throw new Error(seen); });
`;
}

// mocha's test files: scripts under a test folder (mocha's default spec is ./test), or named as tests.
const MOCHA_SCRIPT = /\.[cm]?[jt]sx?$/;
const isMochaTest = (path: string): boolean => /(?:^|\/)(?:test|tests|spec|__tests__)\//.test(path) || JS_TEST_FILE.test(path);

/**
 * The files the spec the launcher gives mocha names (`'test/*.mjs'`, `test/unit`: a folder stands for
 * the scripts directly in it), or null when it names none (mocha's default then) or cannot be read.
 * Words after an option that takes a value (`--timeout 5000`) are not paths: only words with a
 * slash, a glob character or a script's extension count.
 */
function specOf(command: string): ((path: string) => boolean) | null {
  const args = launcherArgs(lastStep(command)?.last ?? command, "mocha-run.cjs");
  const globs = (args ?? []).map(unquote).filter((w) => !w.startsWith("-") && (/[/*]/.test(w) || MOCHA_SCRIPT.test(w)))
    .map((w) => w.replace(/^\.\//, ""))
    .map((w) => (/[*?{[]/.test(w) || MOCHA_SCRIPT.test(w) ? w : `${w.replace(/\/+$/, "")}/*`));
  return globs.length === 0 ? null : picomatch(globs);
}

/**
 * Where the canaries' file goes (issue 19: a fresh name beside the targets, nothing in the
 * environment): beside a random test file of the tree, named by fresh words with that file's
 * suffix (`.test.js`, `.spec.ts`, `.js`), so mocha's own spec collects it like its neighbour.
 */
async function canaryPath(treeDir: string, command: string): Promise<string | null> {
  const files = (await testFilesIn(treeDir, MOCHA_SCRIPT)).filter(isMochaTest);
  if (files.length === 0) return null;
  // Among the files the command's own spec names, when it names some: beside another script of a
  // test folder mocha does not collect (yargs/yargs-parser's `test/deno/*.ts` beside its spec
  // 'test/*.mjs'), the canary was never collected, and the run had none most of the time.
  const spec = specOf(command);
  const collected = spec === null ? [] : files.filter((f) => spec(f));
  const pool = collected.length > 0 ? collected : files;
  const chosen = pool[randomInt(pool.length)] as string;
  const slash = chosen.lastIndexOf("/");
  const name = chosen.slice(slash + 1);
  const suffix = name.slice(name.indexOf("."));
  const dir = slash < 0 ? "" : `${chosen.slice(0, slash)}/`;
  for (let i = 0; i < 5; i += 1) {
    const path = `${dir}${fileWords().join("-")}${suffix}`;
    if (!await lstat(join(treeDir, path)).then(() => true, () => false)) return path;
  }
  return null;
}

export const mocha: Runner = {
  name: "mocha",
  runs: (command) => runsGateMocha(command) || /(?:^|[\s/;&|(])mocha(?:\s|$)/.test(command),
  detect: async (repo) => detectNode(repo, "mocha"),
  command: (found) => ({
    command: ['node "$RANEX_REPORTERS/mocha-run.cjs"', ...mochaArgs(found.testScript ?? "").map(quote)].join(" "), note: missingNote(found),
  }),
  async canary({ command, treeDir, values, hostDir, seenAs, tree }) {
    if (!runsGateMocha(command)) return { note: "mocha: the canary is given through the gate's launcher only (node \"$RANEX_REPORTERS/mocha-run.cjs\")" };
    const file = await canaryPath(treeDir, command);
    if (file === null) return { note: "mocha: no test file in the tree to place the canary beside" };
    const names = phrases(5).map(titleOf) as [string, string, string, string, string];
    // The registration watch (./mocha-guard.ts): the launcher installs it, named by a variable it deletes.
    const guard = `${randomBytes(6).toString("hex")}.cjs`;
    await writeFile(join(hostDir, guard), mochaGuard({ ...tree ?? { treeRoot: treeDir, frozen: [] }, gate: seenAs }), { flag: "wx" });
    await writeFile(join(treeDir, file), canaryFile(values, names, pathToFileURL(`${seenAs}/${guard}`).href), { flag: "wx" });
    const [raise, strict, legacy, pass, registered] = names;
    return {
      env: { RANEX_MOCHA_GUARD: `${seenAs}/${guard}` },
      treeFiles: [file],
      members: [
        { name: raise, via: "a plain throw", expect: "fail" }, { name: strict, via: "node:assert strict equal", expect: "fail" },
        { name: legacy, via: "node:assert legacy equal", expect: "fail" }, { name: pass, via: "node:assert/strict equal", expect: "pass" },
        { name: registered, via: "mocha's test registration in every frozen test file", expect: "pass" },
      ],
    };
  },
  select: () => null,
  // The PR's own runs: the launcher keeps only its new files among those mocha's own spec collects.
  selectFiles: ({ command, common }) => (runsGateMocha(command) ? launcherFiles(command, common, "mocha launcher, by spec file") : null),
  canSelect: () => false,
  repeatNote: WHOLE_SUITE_NOTE,
  deps: { keyFiles: NODE_KEY_FILES },
};
