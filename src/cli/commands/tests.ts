import { parseArgs } from "node:util";
import { CannotJudge } from "../../judge/judge.js";
import { runAt, type RunAt } from "../../judge/run-at.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type Command } from "../io.js";
import { revInCheckout } from "../local-rev.js";
import { firstProblem, timingLine } from "../suite-summary.js";

// `ranex tests --repo <path|url> --rev <rev> [--json]`: runs the policy's suite on one revision, in
// the sandbox, exactly as a judgment does, and prints every test id as the gate names it: the ids a
// task's `targets` and `edges` may use. Exit 0 when the suite reported tests, 1 when it did not
// (the problem and its fix are printed), 2 when it could not run at all.

const USAGE = "usage: ranex tests --repo <path|url> --rev <rev> [--json] [--data-dir <dir>]";

export const run: Command = async (args, io) => {
  let values;
  try {
    ({ values } = parseArgs({
      args, strict: true, allowPositionals: false,
      options: { repo: { type: "string" }, rev: { type: "string" }, json: { type: "boolean", default: false }, "data-dir": { type: "string" } },
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; ${USAGE}`);
  }
  if (values.repo === undefined || values.rev === undefined) throw new UsageError(`--repo and --rev are required; ${USAGE}`);
  const dataDir = dataDirFrom(values["data-dir"] === undefined ? [] : ["--data-dir", values["data-dir"]], io.env, io.cwd);
  let result: RunAt;
  try {
    result = await runAt({ source: values.repo, rev: await revInCheckout(values.repo, values.rev, io.cwd), dataDir });
  } catch (err) {
    if (err instanceof CannotJudge) {
      io.stderr(`ranex tests: ${err.message.split("\n")[0]}\n`);
      return 2;
    }
    throw err;
  }
  const report = result.suite.report;
  const problem = firstProblem(result);
  if (values.json) {
    io.stdout(JSON.stringify({
      commit: result.commit,
      tests: (report?.cases ?? []).map((c) => ({ id: c.id, file: c.file, result: c.result })),
      duplicates: report?.duplicates ?? [], loadErrors: report?.loadErrors ?? [],
      problem, timings: result.timings,
    }) + "\n");
    return report === null ? 1 : 0;
  }
  for (const c of [...(report?.cases ?? [])].sort((a, b) => a.id.localeCompare(b.id))) io.stdout(`${c.result.padEnd(8)} ${c.id}\n`);
  io.stdout(`${report?.cases.length ?? 0} test(s) on ${result.commit.slice(0, 12)} (${timingLine(result)})\n`);
  if (report !== null && report.duplicates.length > 0) io.stdout(`duplicate ids (not usable as targets): ${report.duplicates.join(", ")}\n`);
  if (problem !== null) io.stdout(`problem: ${problem.problem}\nfix: ${problem.fix}\n`);
  return report === null ? 1 : 0;
};
