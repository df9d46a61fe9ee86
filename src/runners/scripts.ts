// What a repository really runs as its tests (issue 22), for `ranex init`: `npm test` followed through
// `npm run X` indirection in package.json's scripts, the steps before the runner (code generation,
// a build) kept as a prefix of the command init writes, and the runners the gate cannot read yet
// named honestly with the command that would make them write a report it can.
import type { PackageJson } from "../policy/detect.js";

export interface ScriptStep {
  /** The step as package.json writes it (`npm run generate`), for a prefix of the test command. */
  text: string;
  /** The step with every `npm run X` it holds expanded, for recognising the runner. */
  expanded: string;
}

const RUN_SCRIPT = /^(?:npm\s+(?:run(?:-script)?|test|t)\b|yarn(?:\s+run)?|pnpm(?:\s+run)?|bun\s+run)\s*([\w:.-]*)/;

/** The script a step calls (`npm run generate` -> generate; `npm test` -> test), or null. */
function scriptCalled(step: string, pkg: PackageJson): string | null {
  const m = RUN_SCRIPT.exec(step.trim());
  if (m === null) return null;
  const name = /^npm\s+(?:test|t)\b/.test(step.trim()) ? "test" : m[1] ?? "";
  return name !== "" && pkg.scripts?.[name] !== undefined ? name : null;
}

/**
 * The steps of `scripts.test`, split on `&&`, each with the scripts it calls expanded (at most a few
 * levels deep, and never a script twice: a script that calls itself is not followed).
 */
export function testSteps(pkg: PackageJson, script = "test", seen: ReadonlySet<string> = new Set()): ScriptStep[] {
  const body = pkg.scripts?.[script];
  if (body === undefined || seen.has(script) || seen.size > 6) return [];
  const inner = new Set([...seen, script]);
  const steps = body.split(/\s*&&\s*/).filter((s) => s.trim() !== "").map((text) => {
    const called = scriptCalled(text, pkg);
    const expanded = called === null ? text : testSteps(pkg, called, inner).map((s) => s.expanded).join(" && ") || text;
    return { text: text.trim(), expanded };
  });
  // npm runs `pre<name>` before every script it runs (yargs/yargs-parser: `pretest` compiles the
  // TypeScript its mocha tests import from build/): the tests need it as much as a step written
  // inline. It is kept as one `npm run` step, which finds the package's own bin folder as npm does.
  const pre = `pre${script}`;
  if (script.startsWith("pre") || pkg.scripts?.[pre] === undefined || inner.has(pre)) return steps;
  const expanded = testSteps(pkg, pre, inner).map((s) => s.expanded).join(" && ");
  return [{ text: `npm run ${pre}`, expanded }, ...steps];
}

/** The whole test script with its indirection expanded, for matching runner names. */
export function expandedTest(pkg: PackageJson): string {
  return testSteps(pkg).map((s) => s.expanded).join(" && ");
}

/**
 * The steps before the one that runs `runner`, as the owner wrote them: `npm run generate` in
 * `npm run generate && node --test`. Checks (lint, typecheck) and a build of types only are left to
 * `checks`; everything else a test run needs first is kept.
 */
export function preSteps(pkg: PackageJson, runner: RegExp): string[] {
  const steps = testSteps(pkg);
  const at = steps.findIndex((s) => runner.test(s.expanded));
  if (at <= 0) return [];
  const check = (t: string): boolean => /\b(?:lint|eslint|prettier|tsc\s+--noEmit|typecheck|standard|xo)\b/.test(t);
  return steps.slice(0, at).filter((s) => !check(s.text) && !s.expanded.split(/\s*&&\s*/).every(check)).map((s) => s.text);
}

/** Runners the gate cannot read yet, how to recognise them, and the command that would make a report it can. */
export const UNSUPPORTED: readonly { name: string; pattern: RegExp; fix: string }[] = [
  // tape, ava and node-tap write TAP, which the gate reads through its launcher (src/runners/tap-launch.ts).
  { name: "uvu", pattern: /\buvu\b/, fix: "uvu writes neither TAP nor JUnit (its reporter is fixed), so no report names its tests one by one: run its suites under node --test or tape (read through the gate's TAP launcher)" },
  { name: "jasmine", pattern: /\bjasmine\b/, fix: "make it write JUnit with jasmine-reporters' JUnitXmlReporter (savePath: the folder of $RANEX_JUNIT)" },
  { name: "karma", pattern: /\bkarma\b/, fix: "make it write JUnit with karma-junit-reporter (outputFile: $RANEX_JUNIT)" },
  { name: "lab", pattern: /\blab\b/, fix: "make it write JUnit: `lab -r junit -o \"$RANEX_JUNIT\"`" },
];

/** The one honest line for a test script that runs a runner the gate cannot read, or null. */
export function unsupportedRunner(command: string, where: string): string | null {
  const found = UNSUPPORTED.find((u) => u.pattern.test(command));
  if (found === undefined) return null;
  return `${where} runs ${found.name}, which the gate cannot read yet; ${found.fix}, and name that command in tests.command`;
}
