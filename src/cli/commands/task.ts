import { parseArgs } from "node:util";
import { execa } from "execa";
import { CannotJudge } from "../../judge/judge.js";
import { runAt, type RunAt } from "../../judge/run-at.js";
import { formatIssues, parseTask, taskPath } from "../../policy/index.js";
import type { TestCaseResult } from "../../measure/report-types.js";
import { openRepository, WorkspaceError } from "../../workspace/index.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type CliIo, type Command } from "../io.js";
import { firstProblem } from "../suite-summary.js";

// `ranex task check <id> [--repo <path|url>] [--base <rev>]`: measures a task's targets on the base,
// in the sandbox, before any agent starts. A target must not pass on the base (tests.red_green
// would refuse it): each is shown red (fails there), absent (the PR must add it) or GREEN (a
// problem), with ambiguous ids named. Exit 0 when every target can work, 1 when one cannot, 2 when
// the task or the suite could not be read at all.

const USAGE = "usage: ranex task check <id> [--repo <path|url>] [--base <rev>] [--data-dir <dir>]";
const MAX_TASK_BYTES = 256 * 1024;

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
    const base = values.base ?? await localHead(source);
    const task = await readTask(source, base, id, dataDir);
    if (task.targets.length === 0) {
      io.stdout(`task ${id} names no targets: the PR's new test files will be its targets\n`);
      return 0;
    }
    const result = await runAt({ source, rev: base, dataDir });
    return printTargets(task.targets, result, io);
  } catch (err) {
    if (err instanceof CannotJudge || err instanceof WorkspaceError) {
      io.stderr(`ranex task check: ${err.message.split("\n")[0]}\n`);
      return 2;
    }
    throw err;
  }
};

function printTargets(targets: readonly string[], result: RunAt, io: CliIo): number {
  const report = result.suite.report;
  if (report === null) {
    const problem = firstProblem(result);
    io.stdout(`the suite wrote no report on ${result.commit.slice(0, 12)}: ${problem?.problem ?? "unknown"}\nfix: ${problem?.fix ?? ""}\n`);
    return 2;
  }
  const byId = new Map<string, TestCaseResult>(report.cases.map((c) => [c.id, c]));
  const duplicates = new Set(report.duplicates);
  let bad = 0;
  for (const target of targets) {
    const found = byId.get(target);
    let line: string;
    if (duplicates.has(target)) {
      bad++;
      line = `AMBIGUOUS ${target}: several tests have this id on the base; name a test whose id is unique (ranex tests lists them)`;
    } else if (found === undefined) {
      line = `absent    ${target}: not on the base; the PR must add it (it counts as red there)`;
    } else if (found.result === "passed") {
      bad++;
      line = `GREEN     ${target}: already passes on the base, so it can never go red to green; name a test that fails today`;
    } else {
      line = `red       ${target}: ${found.result} on the base${found.message === undefined ? "" : ` (${found.message})`}`;
    }
    io.stdout(`${line}\n`);
  }
  const near = targets.filter((t) => !byId.has(t)).flatMap((t) => similar(t, [...byId.keys()]));
  if (near.length > 0) io.stdout(`ids on the base that look alike: ${[...new Set(near)].join(", ")}\n`);
  io.stdout(bad === 0 ? `task targets can work (base ${result.commit.slice(0, 12)})\n` : `${bad} target(s) cannot work as written\n`);
  return bad === 0 ? 0 : 1;
}

/** Ids sharing the target's test name or file: a likely misspelling or a different id format. */
function similar(target: string, ids: readonly string[]): string[] {
  const name = target.split("::").pop() ?? target;
  const file = target.split("::")[0] ?? "";
  return ids.filter((id) => id.endsWith(`::${name}`) || (file !== "" && id.startsWith(`${file}::`) && id.includes(name))).slice(0, 5);
}

async function readTask(source: string, rev: string, id: string, dataDir: string) {
  const repo = await openRepository(source, dataDir);
  const commit = await repo.resolveCommit(rev);
  let file: string;
  try {
    file = taskPath(id);
  } catch (err) {
    throw new CannotJudge(`invalid task id ${JSON.stringify(id)}: ${(err as Error).message}`);
  }
  const blob = await repo.readBlob(commit, file, MAX_TASK_BYTES);
  if (blob === null) throw new CannotJudge(`no task '${id}' on ${commit.slice(0, 12)}: ${file} does not exist there`);
  const parsed = parseTask(blob, file, id);
  if (!parsed.ok) throw new CannotJudge(`invalid ${file}: ${formatIssues(parsed.errors)[0] ?? "unknown error"}`);
  return parsed.task;
}

/** The base defaults to the local checkout's HEAD; a URL needs --base. */
async function localHead(source: string): Promise<string> {
  const head = await execa("git", ["-C", source, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { reject: false });
  if (head.exitCode !== 0) throw new UsageError(`cannot tell the base of ${source}: pass --base <rev>`);
  return head.stdout.trim();
}
