import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { execa } from "execa";
import { CannotJudge } from "../../judge/judge.js";
import { runAt, type RunAt } from "../../judge/run-at.js";
import { formatIssues, parseTask, taskPath } from "../../policy/index.js";
import { resolveCase } from "../../measure/tests/outcomes.js";
import { casesById, fileOfId, loadErrorReason } from "../../measure/tests/run-facts.js";
import { openRepository, WorkspaceError } from "../../workspace/index.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type CliIo, type Command } from "../io.js";
import { revInCheckout } from "../local-rev.js";
import { whyNotOnBase } from "../git-ignored.js";
import { firstProblem } from "../suite-summary.js";
import { runnersIn } from "../../runners/index.js";
import { hiddenTargets } from "../../measure/tests/hidden-targets.js";

// `ranex task check <id> [--repo <path|url>] [--base <rev>]`: measures a task's targets on the base,
// in the sandbox, before any agent starts, and reads each target exactly as the judge will: red
// (fails there, or its file fails to load), or a problem: GREEN, SKIPPED, AMBIGUOUS (the ids of each
// copy named), ABSENT (not on the base: absent is not red, issue 22; ids that look alike named). Exit 0 when every target can work, 1 when one cannot, 2 when
// the task or the suite could not be read at all.

const USAGE = "usage: ranex task check <id> [--repo <path|url>] [--base <rev>] [--data-dir <dir>]";
const MAX_TASK_BYTES = 256 * 1024;
const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

export const run: Command = async (args, io) => {
  const [sub, ...rest] = args;
  if (sub !== "check") throw new UsageError(`unknown subcommand '${sub ?? ""}'; ${USAGE}`);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest, strict: true, allowPositionals: true,
      options: { repo: { type: "string" }, base: { type: "string" }, "data-dir": { type: "string" } },
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; ${USAGE}`);
  }
  const [id, ...extra] = parsed.positionals;
  if (id === undefined || extra.length > 0) throw new UsageError(`name exactly one task id; ${USAGE}`);
  const { values } = parsed;
  const source = values.repo ?? io.cwd;
  const dataDir = dataDirFrom(values["data-dir"] === undefined ? [] : ["--data-dir", values["data-dir"]], io.env, io.cwd);
  try {
    const base = values.base === undefined ? await localHead(source) : await revInCheckout(source, values.base, io.cwd);
    const { task, files, read } = await readTask(source, base, id, dataDir, resolve(io.cwd, source));
    if (task.targets.length === 0) {
      io.stdout(`task ${id} names no targets: the PR's new test files will be its targets\n`);
      return 0;
    }
    const result = await runAt({ source, rev: base, dataDir });
    const hidden = await hiddenTargets(task.targets, result.suite.report, result.policy.tests.command ?? "", { files, read });
    return printTargets(task.targets, result, files, await declaredFiles(task.targets, result, files, read), hidden, io);
  } catch (err) {
    if (err instanceof CannotJudge || err instanceof WorkspaceError) {
      io.stderr(`ranex task check: ${err.message.split("\n")[0]}\n`);
      return 2;
    }
    throw err;
  }
};

/**
 * Each target as the judge reads it (tests.red_green, src/measure/tests/red-green.ts): red when it
 * fails on the base or its file fails to load there; a test several ids share is ambiguous; an id the
 * base does not have is absent, and absent is not red. A PR that adds the test in a file of its own
 * makes it the PR's own writing, judged on the base with that file laid over it; in a file that
 * exists on the base (frozen) no PR can add it at all.
 */
function printTargets(targets: readonly string[], result: RunAt, baseFiles: ReadonlySet<string>, declared: ReadonlyMap<string, string>, hidden: ReadonlyMap<string, string>, io: CliIo): number {
  const report = result.suite.report;
  if (report === null) {
    const problem = firstProblem(result);
    io.stdout(`the suite wrote no report on ${result.commit.slice(0, 12)}: ${problem?.problem ?? "unknown"}\nfix: ${problem?.fix ?? ""}\n`);
    return 2;
  }
  const byId = casesById(report);
  let bad = 0;
  const absent: string[] = [];
  for (const target of targets) {
    const resolved = resolveCase(byId, target);
    const file = resolved.kind === "case" ? resolved.case.file ?? fileOfId(target) : declared.get(target) ?? fileOfId(target);
    let line: string;
    if (resolved.kind === "shared") {
      bad++;
      line = `AMBIGUOUS ${target}: several tests share this id on the base; name one of them instead (${resolved.ids.join(", ")})`;
    } else if (resolved.kind === "absent" && report.loadErrors.includes(file)) {
      line = `red       ${target}: its file failed to load on the base${loadErrorReason(report, file) === undefined ? "" : ` (${loadErrorReason(report, file)})`}`;
    } else if (resolved.kind === "absent") {
      bad++;
      absent.push(target);
      const why = hidden.get(target);
      line = why !== undefined
        ? `ABSENT    ${target}: the base holds it, but the command never compiles it: it is ${why}`
        : baseFiles.has(file)
        ? `ABSENT    ${target}: no test has this id on the base, and its file ${file} is frozen there, so no PR can add it; the judge calls it absent, not red`
        : `ABSENT    ${target}: no test has this id on the base, and absent is not red; only a PR that adds ${file} could make it a target, as its own self-authored test: to name a test the owner wrote, commit it red on the base`;
    } else if (resolved.case.result === "passed") {
      bad++;
      line = `GREEN     ${target}: already passes on the base, so it can never go red to green; name a test that fails today`;
    } else if (resolved.case.result === "skipped") {
      bad++;
      line = `SKIPPED   ${target}: skipped on the base, which is not red; name a test that fails today`;
    } else {
      line = `red       ${target}: ${resolved.case.result} on the base${resolved.case.message === undefined ? "" : ` (${resolved.case.message})`}`;
    }
    io.stdout(`${line}\n`);
  }
  const near = absent.flatMap((t) => similar(t, [...byId.keys()]));
  if (absent.length > 0) {
    io.stdout(near.length > 0 ? `ids on the base that look alike: ${[...new Set(near)].join(", ")}\n` : "no id on the base looks alike: `ranex tests` lists every id as the judge reads it\n");
  }
  io.stdout(bad === 0 ? `task targets can work (base ${result.commit.slice(0, 12)})\n` : `${bad} target(s) cannot work as written\n`);
  return bad === 0 ? 0 : 1;
}

/**
 * Ids that look like the target: the same test name in another file, or in the same file a name that
 * holds the target's or is held by it, or differs by a few characters (a misspelling, a different
 * id format such as a class left out).
 */
export function similar(target: string, ids: readonly string[]): string[] {
  const name = (id: string): string => (id.split("::").pop() ?? id).toLowerCase();
  const wanted = name(target);
  const file = fileOfId(target);
  return ids.filter((id) => {
    if (id === target) return false;
    const other = name(id);
    if (other === wanted) return true;
    if (fileOfId(id) !== file) return false;
    return other.includes(wanted) || wanted.includes(other) || editDistance(other, wanted) <= Math.max(2, Math.floor(wanted.length / 5));
  }).sort().slice(0, 5);
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

async function readTask(source: string, rev: string, id: string, dataDir: string, checkout: string) {
  const repo = await openRepository(source, dataDir);
  const commit = await repo.resolveCommit(rev);
  let file: string;
  try {
    file = taskPath(id);
  } catch (err) {
    throw new CannotJudge(`invalid task id ${JSON.stringify(id)}: ${(err as Error).message}`);
  }
  const blob = await repo.readBlob(commit, file, MAX_TASK_BYTES);
  if (blob === null) {
    // A task written but never committed (a .gitignore that ignores `.ranex/`) is the usual reason: say which.
    const why = await whyNotOnBase(checkout, file);
    throw new CannotJudge(`no task '${id}' on ${commit.slice(0, 12)}: ${file} does not exist there${why === null ? "" : `; ${why}`}`);
  }
  const parsed = parseTask(blob, file, id);
  if (!parsed.ok) throw new CannotJudge(`invalid ${file}: ${formatIssues(parsed.errors)[0] ?? "unknown error"}`);
  const read = async (path: string): Promise<string | null> => (await repo.readBlob(commit, path, MAX_SOURCE_BYTES))?.toString("utf8") ?? null;
  return { task: parsed.task, files: new Set((await repo.listFiles(commit)).map((f) => f.path)), read };
}

/**
 * The base's file of each target the base run did not report, asked of the command's runners: a
 * Go id (`example.com/m/TestX`) does not start with its file, and a test that never ran because its
 * file failed to load (a Go test after one that panicked) is red, not absent, as the judge reads it.
 */
async function declaredFiles(targets: readonly string[], result: RunAt, files: ReadonlySet<string>, read: (path: string) => Promise<string | null>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const reported = result.suite.report === null ? new Map() : casesById(result.suite.report);
  for (const target of targets) {
    if (resolveCase(reported, target).kind !== "absent") continue;
    for (const runner of runnersIn(result.policy.tests.command ?? "")) {
      const file = await runner.fileOfId?.(target, { files, read }) ?? null;
      if (file !== null) {
        found.set(target, file);
        break;
      }
    }
  }
  return found;
}

/** The base defaults to the local checkout's HEAD; a URL needs --base. */
async function localHead(source: string): Promise<string> {
  const head = await execa("git", ["-C", source, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { reject: false });
  if (head.exitCode !== 0) throw new UsageError(`cannot tell the base of ${source}: pass --base <rev>`);
  return head.stdout.trim();
}
