import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { execa } from "execa";
import { ignoredGateFiles } from "../git-ignored.js";
import { DEFAULT_TIMEOUT, MAX_TIMEOUT, sizeTimeout, type SizedTimeout } from "../../policy/init-timeout.js";
import { loadavg } from "node:os";
import { UsageError, type CliIo, type Command } from "../io.js";
import { dataDirFrom } from "../data-dir.js";
import { POLICY_PATH, TASKS_DIR, formatIssues, parsePolicy, parseTask } from "../../policy/index.js";
import { detectTestRunner, type Detection } from "../../policy/detect.js";
import { missingPackages, renderStarter, type StarterOptions } from "../../policy/init.js";
import type { Policy } from "../../policy/schema.js";
import { runAt, type RunAt } from "../../judge/run-at.js";
import { shown } from "../../measure/diff/index.js";
import { firstProblem, seconds, testsPerFile, timingLine } from "../suite-summary.js";
import { changedFromHead, commitWithWorkingTree, MANIFEST_FILES } from "../working-tree-commit.js";

// `ranex init`: writes .github/ranex.yml for the repository, then TRIES it on HEAD in the sandbox
// (unless --no-try) and says what it found: tests per file, duplicate ids, checks that already fail
// (left out of the file), the timing, and the first problem with its fix. Exit 0 when written and
// the try found no problem, 1 when written but the try found one, 2 when nothing was written.

const USAGE = "usage: ranex init [--dir <d>] [--force] [--no-try] [--add-deps] [--toolchain <dir>]... [--timeout <s>] [--data-dir <d>]";

interface Options {
  dir: string;
  force: boolean;
  tryIt: boolean;
  addDeps: boolean;
  toolchain: string[];
  dataDir: string;
  /** The try's tests.timeout (default 600); what init writes is sized from what the try measured. */
  timeout: number;
}

function options(args: string[], io: CliIo): Options {
  let values;
  try {
    ({ values } = parseArgs({
      args, strict: true, allowPositionals: false,
      options: {
        dir: { type: "string" }, force: { type: "boolean", default: false }, "no-try": { type: "boolean", default: false },
        "add-deps": { type: "boolean", default: false }, toolchain: { type: "string", multiple: true }, "data-dir": { type: "string" },
        timeout: { type: "string" },
      },
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; ${USAGE}`);
  }
  if (values.dir === "") throw new UsageError("--dir needs a directory");
  const timeout = values.timeout === undefined ? DEFAULT_TIMEOUT : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT) throw new UsageError(`--timeout takes whole seconds from 1 to ${MAX_TIMEOUT}`);
  return {
    dir: values.dir === undefined ? io.cwd : resolve(io.cwd, values.dir),
    force: values.force, tryIt: !values["no-try"], addDeps: values["add-deps"],
    toolchain: (values.toolchain ?? []).map((d) => resolve(io.cwd, d)), timeout,
    dataDir: dataDirFrom(values["data-dir"] === undefined ? [] : ["--data-dir", values["data-dir"]], io.env, io.cwd),
  };
}

export const run: Command = async (args, io) => {
  let opts: Options;
  try {
    opts = options(args, io);
  } catch (err) {
    io.stderr(`ranex init: ${(err as Error).message}\n`);
    return 2;
  }
  const target = join(opts.dir, POLICY_PATH);
  if (!existsSync(opts.dir)) {
    io.stderr(`ranex init: ${opts.dir} does not exist\n`);
    return 2;
  }
  if (existsSync(target) && !opts.force) {
    io.stderr(`ranex init: ${target} already exists; pass --force to overwrite it\n`);
    return 2;
  }
  for (const dir of opts.toolchain) {
    if (!existsSync(dir)) {
      io.stderr(`ranex init: --toolchain ${dir} does not exist\n`);
      return 2;
    }
  }
  let found = await detectTestRunner(opts.dir);
  io.stdout(`runner: ${found.kind} (${found.evidence})\n`);
  if (found.runnerArgs !== undefined) io.stdout(`test features: ${found.runnerArgs.args}: ${found.runnerArgs.says}\n`);
  const missing = missingPackages(found);
  // What init itself changes in the working tree; the try runs HEAD with these, as init leaves it.
  let changed: string[] = [];
  if (missing.length > 0 && opts.addDeps) {
    const dirtyBefore = await changedFromHead(opts.dir, MANIFEST_FILES).catch(() => [] as string[]);
    io.stdout(`adding devDependencies: npm install --save-dev ${missing.join(" ")}\n`);
    // --ignore-scripts: this install only declares the packages (package.json and the lock); the
    // policy's setup installs them in the sandbox. With scripts, npm ran every dependency's install
    // scripts here, outside the sandbox, and one that downloads a browser (puppeteer, found on
    // yargs/yargs-parser) failed without its host and stopped init.
    const added = await execa("npm", ["install", "--save-dev", "--ignore-scripts", "--no-audit", "--no-fund", ...missing], { cwd: opts.dir, reject: false, all: true });
    if (added.exitCode !== 0) {
      io.stderr(`ranex init: npm install --save-dev ${missing.join(" ")} failed (exit ${added.exitCode}): ${String(added.all ?? "").trim().split("\n").slice(-3).join(" | ")}\n`);
      return 2;
    }
    found = await detectTestRunner(opts.dir);
    changed = [...new Set([...dirtyBefore, ...await changedFromHead(opts.dir, MANIFEST_FILES).catch(() => [] as string[])])].sort();
  } else if (missing.length > 0) {
    io.stdout(`missing: package.json does not declare ${missing.join(", ")}; run 'npm install --save-dev ${missing.join(" ")}' (or 'ranex init --add-deps')${opts.toolchain.length > 0 ? ", unless the toolchain provides them" : ""}\n`);
  }

  const sealed = await hasSealedTasks(opts.dir);
  if (sealed) io.stdout("sealed tasks found under .ranex/sealed: tests.sealed is required\n");
  const starter: StarterOptions = { toolchain: opts.toolchain, sealed, timeout: { seconds: opts.timeout } };
  let tried: RunAt | null = null;
  let tryError: string | null = null;
  let sized: SizedTimeout | null = null;
  if (opts.tryIt) {
    const head = await headOf(opts.dir);
    if (head === null) tryError = `${opts.dir} is not a git repository with a commit: nothing to try (commit first, or pass --no-try)`;
    else {
      const tryWith = async (detected: Detection, rev: string): Promise<RunAt | null> => {
        const candidate = policyOf(renderStarter(detected, { ...starter, checks: detected.checks }));
        if (!candidate.ok || candidate.policy.tests.command === undefined) return null;
        return await runAt({ source: opts.dir, rev, dataDir: opts.dataDir, policy: candidate.policy, checks: true });
      };
      try {
        let rev = head;
        if (changed.length > 0) {
          rev = await commitWithWorkingTree(opts.dir, head, changed);
          io.stdout(`trying the working tree with init's changes (HEAD ${head.slice(0, 12)} plus ${changed.join(", ")}, uncommitted) in the sandbox…\n`);
        } else io.stdout(`trying it on HEAD ${head.slice(0, 12)} in the sandbox…\n`);
        tried = await tryWith(found, rev);
        // Features that exclude each other (cargo): the next set the runner proposed, until one builds.
        while (tried !== null && !built(tried) && (found.fallbacks ?? []).length > 0) {
          const [next, ...rest] = found.fallbacks ?? [];
          if (next === undefined) break;
          io.stdout(`${argsOf(found)} did not build on HEAD (${firstProblem(tried)?.problem.slice(0, 200) ?? "no test ran"}); trying ${argsOf({ ...found, ...next.patch })}…\n`);
          found = { ...found, ...next.patch, fallbacks: rest };
          tried = await tryWith(found, rev);
        }
      } catch (err) {
        tryError = `could not try it: ${(err as Error).message.split("\n")[0]}`;
      }
    }
    sized = tried === null ? null : sizedFromTry(tried, opts.timeout);
    if (sized !== null) starter.timeout = sized;
    starter.checks = tried === null ? [] : found.checks.filter((c) => tried?.checks.find((t) => t.name === c.name)?.result.exitCode === 0);
    starter.dropped = found.checks.filter((c) => !(starter.checks ?? []).includes(c)).map((c) => ({
      ...c, why: tried === null ? "was not tried on HEAD" : `fails on HEAD already (${describe(tried.checks.find((t) => t.name === c.name)?.result)})`,
    }));
  } else {
    starter.checks = [];
    starter.dropped = found.checks.map((c) => ({ ...c, why: "was not tried (--no-try): add it once it passes on HEAD" }));
  }

  const text = renderStarter(found, starter);
  const check = policyOf(text);
  if (!check.ok) {
    // Never hand the owner a file that the judge would refuse.
    io.stderr(`ranex init: the starter policy does not validate (a bug):\n${check.issues}\n`);
    return 2;
  }
  try {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  } catch (err) {
    io.stderr(`ranex init: cannot write ${target}: ${(err as Error).message}\n`);
    return 2;
  }
  const command = check.policy.tests.command;
  io.stdout(`wrote ${target}\n${command === undefined ? "no test runner found: set tests.command" : `tests.command: ${command}`}\n`);
  // node-semver's .gitignore ignores `/*`: the owner's task, committed with `git add -A`, never reached the base (issue 22).
  for (const note of await ignoredGateFiles(opts.dir)) io.stdout(`warning: ${note}\n`);
  // The runner's own command where the gate's launcher cannot serve (vitest with projects of its own, before 1.3): say what that leaves unseen.
  if (found.launcherUnfit !== undefined) io.stdout(`note: ${found.kind}'s own command, not the gate's launcher: ${found.launcherUnfit}; its canary cannot see a test file's \`expect\` neutered or its tests registered with other bodies, and repeats run the whole suite (docs/measurement.md)\n`);
  for (const drop of starter.dropped) io.stdout(`check ${drop.name} (${drop.run}) not written: it ${drop.why}\n`);
  if (sized !== null) io.stdout(`tests.timeout: ${sized.seconds} s: ${sized.why}\n`);
  const reported = tryError !== null || tried === null ? null : report(tried, io);
  // A try that timed out: how long it ran, and the timeout written or the exact line to write.
  const problem = tryError !== null ? { problem: tryError, fix: "" } : sized?.problem ?? reported;
  if (problem !== null) {
    io.stdout(`problem: ${problem.problem}\n${problem.fix === "" ? "" : `fix: ${problem.fix}\n`}`);
    return 1;
  }
  io.stdout("review it, then commit it to the base branch\n");
  return 0;
};

function report(tried: RunAt, io: CliIo): { problem: string; fix: string } | null {
  io.stdout(`timing: ${timingLine(tried)}\n`);
  const cases = tried.suite.report?.cases ?? [];
  if (tried.suite.report !== null) {
    const files = new Set(cases.map((c) => c.file)).size;
    io.stdout(`tests found: ${cases.length} in ${files} file(s)\n${testsPerFile(cases).map((l) => `  ${l}\n`).join("")}`);
    const failing = cases.filter((c) => c.result === "failed" || c.result === "errored");
    if (failing.length > 0) io.stdout(`failing on HEAD already: ${failing.length} (${failing.slice(0, 5).map((c) => c.id).join(", ")}${failing.length > 5 ? ", …" : ""})\n`);
    const duplicates = tried.suite.report.duplicates;
    if (duplicates.length > 0) io.stdout(`duplicate ids: ${duplicates.length} (${duplicates.slice(0, 5).join(", ")}${duplicates.length > 5 ? ", …" : ""})\n`);
  }
  // Read from the try's provenance record, as a judgment reads its base run's (issue 19).
  const helpers = tried.helpers.filter((h) => h.kind === undefined);
  if (helpers.length > 0) {
    io.stdout(`test helpers frozen by default (the frozen tests import them and they assert; release one with tests.helpers.release): ${helpers.length}\n`);
    for (const h of helpers) io.stdout(`  ${shown(h.path)}: imported by ${h.importedBy.map(shown).join(", ")}; ${h.asserts}\n`);
  }
  // The data the frozen tests read and the harness their configuration names (issues 19, 22).
  const others = tried.helpers.filter((h) => h.kind !== undefined);
  if (others.length > 0) {
    io.stdout(`test data and named harness frozen by default (release one with unfreeze): ${others.length}\n`);
    for (const h of others) io.stdout(`  ${shown(h.path)}: ${h.kind === "data" ? `read by ${h.importedBy.map(shown).join(", ")}; ${h.asserts}` : `named by ${h.importedBy.join(", ")}`}\n`);
  }
  return firstProblem(tried);
}

/** Whether the try's tests built: a report with tests in it (cargo reports none when a target does not compile). */
function built(tried: RunAt): boolean {
  return (tried.suite.report?.cases.length ?? 0) > 0;
}

function argsOf(found: Detection): string {
  const args = found.runnerArgs?.args ?? "";
  return args === "" ? `${found.kind} without features` : `${found.kind} ${args}`;
}

/** tests.timeout from what the try measured (src/policy/init-timeout.ts), or null when its own budget fits. */
function sizedFromTry(tried: RunAt, timeout: number): SizedTimeout | null {
  const { setup, command } = tried.suite;
  return sizeTimeout({
    timeout, commandMs: tried.timings.commandMs, setupMs: tried.timings.setupMs ?? setup?.durationMs ?? null,
    timedOut: command?.timedOut === true || setup?.timedOut === true,
    outputTail: command?.outputTail ?? setup?.outputTail ?? "", load: loadavg()[0] ?? 0,
  });
}

function describe(result: RunAt["checks"][number]["result"] | undefined): string {
  if (result === undefined) return "not run";
  const last = result.outputTail.trim().split("\n").filter((l) => l.trim() !== "").pop() ?? "";
  const exit = result.timedOut ? `timed out after ${seconds(result.durationMs)}` : result.violation ?? `exit ${result.exitCode ?? result.signal ?? "?"}`;
  return last === "" ? exit : `${exit}: ${last.slice(0, 160)}`;
}

function policyOf(text: string): { ok: true; policy: Policy } | { ok: false; issues: string } {
  const parsed = parsePolicy(text, POLICY_PATH);
  return parsed.ok ? { ok: true, policy: parsed.policy } : { ok: false, issues: formatIssues(parsed.errors).join("\n") };
}

async function headOf(dir: string): Promise<string | null> {
  const head = await execa("git", ["-C", dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { reject: false, env: { GIT_DIR: undefined } });
  return head.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(head.stdout.trim()) ? head.stdout.trim() : null;
}

/** Whether a task manifest here names a sealed file (`ranex seal` wrote it): then tests.sealed is required. */
async function hasSealedTasks(dir: string): Promise<boolean> {
  const tasks = join(dir, TASKS_DIR);
  const names = await readdir(tasks).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.endsWith(".yml"))) {
    const parsed = parseTask(await readFile(join(tasks, name)), `${TASKS_DIR}/${name}`, name.slice(0, -4));
    if (parsed.ok && parsed.task.sealed !== undefined) return true;
  }
  return false;
}
