// Runs real commands (pytest, node --test, sh) on the host and turns what happened into the plain data
// the orchestration hands the claims: RunResult and SuiteRun. Nothing is faked: exit codes, output,
// timings and reports all come from the actual run. (The sandbox itself is tested in test/sandbox.)
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readJunitReport } from "../../../src/measure/junit-read.js";
import type { SuiteRun } from "../../../src/measure/report-types.js";
import type { RunResult } from "../../../src/sandbox/types.js";
import { tempDir } from "../../helpers/git-repo.js";

export function writeTree(files: Record<string, string>): string {
  const dir = tempDir("ranex-suite-");
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** Runs `sh -c command` in `cwd` and reports it the way the sandbox runner does. */
export function runCommand(command: string, cwd: string, timeoutMs = 30_000, env: Record<string, string> = {}): RunResult {
  const started = performance.now();
  const result = spawnSync("/bin/sh", ["-c", command], {
    cwd, timeout: timeoutMs, killSignal: "SIGKILL", encoding: "utf8",
    env: { PATH: "/usr/bin:/bin", HOME: cwd, PYTHONDONTWRITEBYTECODE: "1", ...env },
  });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  const timedOut = (result.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT";
  return {
    exitCode: result.status, signal: result.signal, timedOut, durationMs: Math.round(performance.now() - started),
    outputTail: output, outputBytes: Buffer.byteLength(output), outputTruncated: false,
    peakMemoryBytes: null, cpuMs: null, violation: null,
  };
}

/** vitest from the gate's own node_modules, with globals so the tree needs no node_modules of its own. */
export const VITEST = `/usr/bin/node ${join(import.meta.dirname, "..", "..", "..", "node_modules", "vitest", "vitest.mjs")} run --globals --reporter=junit --outputFile="$RANEX_JUNIT"`;

const PYTEST = "/usr/bin/python3 -m pytest -q -p no:cacheprovider --continue-on-collection-errors -o xfail_strict=true";

export interface SuiteOptions {
  setup?: string;
  /** Replaces the pytest command (the report still goes to $RANEX_JUNIT). */
  command?: string;
  timeoutMs?: number;
}

/** One real suite run over a tree of files: setup, the command writing JUnit, the report read back. */
export async function runSuite(label: "base" | "head", files: Record<string, string>, options: SuiteOptions = {}): Promise<SuiteRun> {
  const tree = writeTree(files);
  const junit = join(tempDir("ranex-junit-"), "junit.xml");
  const env = { RANEX_JUNIT: junit };
  const setup = options.setup === undefined ? null : runCommand(options.setup, tree, options.timeoutMs, env);
  if (setup !== null && (setup.timedOut || setup.exitCode !== 0)) {
    return { label, setup, command: null, report: null, reportError: null };
  }
  const command = runCommand(options.command ?? `${PYTEST} --junitxml="$RANEX_JUNIT"`, tree, options.timeoutMs, env);
  if (command.timedOut) return { label, setup, command, report: null, reportError: null };
  const read = await readJunitReport(junit, tree);
  return "report" in read
    ? { label, setup, command, report: read.report, reportError: null }
    : { label, setup, command, report: null, reportError: read.error };
}
