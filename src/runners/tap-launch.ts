// Shared by the runners that write TAP (tape, node-tap, ava; `node --test --test-reporter=tap` too):
// the gate's launcher (reporters/tap-run.cjs) runs the runner once per test file and nests each
// file's TAP under a subtest named after it, which is how a test gets its file (TAP names none); the
// command `ranex init` writes for it, from the files the repository's own test script names; the
// reader (tap-report.ts); and the canary family, a test file written beside the tree's tests that
// the launcher runs as one more file through the same runner (RANEX_TAP_CANARY, which the launcher
// removes before any runner starts); and the selection, which the launcher reads from
// $RANEX_SELECT_FILE itself (by file, and by name where the runner can).
import { lstat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { besideTestFile, JS_TEST_FILE } from "../measure/canary-place.js";
import { fileWords, phrases, titleOf } from "../measure/canary-names.js";
import type { Detection } from "../policy/detect.js";
import { claimsTap, parseTap, type TapDialect } from "./tap-report.js";
import { launcherFiles } from "./js-select-files.js";
import type { CanaryContext, CanaryResult, ReportReader, Runner } from "./types.js";

export const TAP_READER: ReportReader = { format: "TAP", claims: claimsTap, parse: (text, resolve) => parseTap(text, resolve) };

const LAUNCHER = /(?:^|\s)node\s+"?\$\{?RANEX_REPORTERS\}?\/tap-run\.cjs"?\s+([\w-]+)/;

/** Which runner a command gives the gate's TAP launcher, or null when it does not run the launcher. */
export function launcherRunner(command: string): string | null {
  return LAUNCHER.exec(command)?.[1] ?? null;
}

/**
 * Selection through the launcher: the command is unchanged, the launcher reads the ids from
 * $RANEX_SELECT_FILE and runs only their files, telling the runner their names where it can
 * (reporters/tap-run.cjs). A selected run proves itself by its report: every selected id must be in
 * it (src/measure/select.ts), and the tests the name filter skipped are left out of it
 * (tap-report.ts), so a test the filter missed is absent, never an outcome.
 */
export function launcherSelection(runner: TapDialect, how: string): Pick<Runner, "select" | "canSelect" | "selectFiles"> {
  const canSelect = (command: string): boolean => launcherRunner(command) === runner;
  return {
    canSelect, select: ({ command, common }) => (canSelect(command) ? { command, env: common, how } : null),
    // The PR's own runs: its new files among those the command's patterns match, whole (RANEX_SELECT_BY=file).
    selectFiles: ({ command, common }) => (canSelect(command) ? launcherFiles(command, common, "the TAP launcher, by file") : null),
  };
}

/** What a runner's words look like in a test script, and the files it runs when the script names none. */
export const TAP_SCRIPTED: Record<Exclude<TapDialect, "node-test">, { pattern: RegExp; defaults: string[] }> = {
  tape: { pattern: /\btape\b/, defaults: ["test/**/*.{js,cjs,mjs}"] },
  ava: { pattern: /\bava\b/, defaults: ["test/**/*.{js,cjs,mjs}", "**/*.{test,spec}.{js,cjs,mjs}"] },
  // node-tap's command is `tap`, alone as a word (not `tape`, not a path segment like `tap/`).
  tap: { pattern: /(?:^|[\s/])tap(?=\s|$)/, defaults: ["test/**/*.{js,cjs,mjs}", "**/*.test.{js,cjs,mjs}"] },
};

export const quote = (word: string): string => (/^[\w./@=:-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);

/**
 * The launcher command for `runner`, keeping the options and files the repository's test script gives
 * it (`c8 tape -r esm 'test/**\/*.js'` -> `tape -r esm -- 'test/**\/*.js'`; a coverage wrapper is
 * left out: coverage is no test outcome). Words that are globs or name a script are the files.
 */
export function launcherCommand(runner: Exclude<TapDialect, "node-test">, found: Detection, pkgTest: string): { command: string; note: string[] } {
  const { pattern, defaults } = TAP_SCRIPTED[runner];
  const step = pkgTest.split(/\s*(?:&&|\|\||;)\s*/).find((s) => pattern.test(s)) ?? "";
  const after = step.slice((pattern.exec(step)?.index ?? step.length) + (pattern.exec(step)?.[0].length ?? 0));
  // A pipe into a pretty-printer (`| tap-spec`) or a redirect ends what the runner is given.
  const own = after.split(/\s(?:\|(?!\|)|>)/)[0] ?? "";
  const words = (own.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/^(['"])(.*)\1$/, "$2"));
  const isFile = (w: string): boolean => !w.startsWith("-") && (/[*?{]/.test(w) || /\.[cm]?[jt]sx?$/.test(w));
  const files = words.filter(isFile);
  const options = words.filter((w) => !isFile(w) && !/^--?tap$/.test(w) && !/^--reporter\b/.test(w));
  const named = files.length > 0 ? files : defaults;
  const before = found.runnerDeclared ? [] : [`package.json does not declare ${runner}: add it to devDependencies, or name a node_modules/.bin that has it in toolchain.path.`];
  return {
    command: `node "$RANEX_REPORTERS/tap-run.cjs" ${runner}${options.length > 0 ? ` ${options.map(quote).join(" ")} --` : ""} ${named.map(quote).join(" ")}`,
    note: [
      ...before,
      `The gate's launcher runs ${runner} once per test file and writes one TAP document to $RANEX_REPORT; ids are <file>::<test>${files.length > 0 ? "" : ` (the test script names no files: ${defaults.join(" ")} is a guess)`}.`,
    ],
  };
}

type Values = CanaryContext["values"];
export interface TapCanaryStyle {
  /** The assertion paths of the three must-fail members and of the must-pass one. */
  via: [string, string, string, string];
  body(v: Values, names: [string, string, string, string]): string;
}

/** Writes the canary test file beside a test file of the tree and names it to the launcher. */
export async function tapCanaries(runner: string, ctx: CanaryContext, style: TapCanaryStyle): Promise<CanaryResult> {
  if (launcherRunner(ctx.command) !== runner) return { note: `${runner}: the canary is given through the gate's launcher only (node "$RANEX_REPORTERS/tap-run.cjs" ${runner} <files>)` };
  const name = `${fileWords().join("-")}.test.cjs`;
  let file = await besideTestFile(ctx.treeDir, JS_TEST_FILE, name);
  if (file === null) {
    for (const dir of ["test", "tests"]) {
      if (file === null && (await lstat(join(ctx.treeDir, dir)).then((s) => s.isDirectory(), () => false))) file = `${dir}/${name}`;
    }
  }
  file ??= name;
  const names = phrases(4).map(titleOf) as [string, string, string, string];
  await writeFile(join(ctx.treeDir, file), style.body(ctx.values, names), { flag: "wx" });
  return {
    env: { RANEX_TAP_CANARY: file },
    treeFiles: [file],
    members: names.map((n, i) => ({ name: n, via: style.via[i] ?? "", expect: i < 3 ? "fail" as const : "pass" as const })),
  };
}

/** The checksum every canary computes (src/measure/canary.ts), as JavaScript. */
export const CHECKSUM_JS = "const checksum = (text) => [...text].reduce((sum, ch, i) => sum + (i + 1) * ch.charCodeAt(0), 0) % 1009;";
