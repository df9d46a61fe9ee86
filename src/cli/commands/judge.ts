import { revInCheckout } from "../local-rev.js";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { CannotJudge, judge } from "../../judge/judge.js";
import { recordVerdict } from "../../judge/record.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type Command } from "../io.js";
import { renderTable, verdictJson } from "../render.js";
import { whyNotOnBase } from "../git-ignored.js";
import { POLICY_PATH, taskPath } from "../../policy/index.js";
import { POLICY_CLAIM } from "../../kernel/claims.js";
import type { Verdict } from "../../kernel/types.js";

const USAGE = "usage: ranex judge --repo <path|url> --base <rev> --head <rev> [--task <id>] [--exact-base] [--json] [--data-dir <dir>] [--key <seed file>]";

// `--base main` names the base branch's tip, as a pull request's base does: the diff claims judge
// the change from the merge base of base and head (`git diff main...head`, GitHub's "Files
// changed"), and the tests measure head merged into that tip. `--exact-base` diffs the two trees
// as given and measures the head unmerged (the judge's behaviour before issue 12).

/** Exit 0 for CANDIDATE, 1 for FAIL, 2 when it could not judge (bad arguments, unreadable repository). */
export const run: Command = async (args, io) => {
  let values;
  try {
    ({ values } = parseArgs({
      args, allowPositionals: false, strict: true,
      options: {
        repo: { type: "string" }, base: { type: "string" }, head: { type: "string" }, task: { type: "string" },
        json: { type: "boolean", default: false }, "data-dir": { type: "string" }, key: { type: "string" },
        "exact-base": { type: "boolean", default: false },
      },
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; ${USAGE}`);
  }
  if (values.repo === undefined || values.base === undefined || values.head === undefined) {
    throw new UsageError(`--repo, --base and --head are required; ${USAGE}`);
  }
  const dataDir = dataDirFrom(values["data-dir"] === undefined ? [] : ["--data-dir", values["data-dir"]], io.env, io.cwd);
  let judgment;
  try {
    const [base, head] = await Promise.all([revInCheckout(values.repo, values.base, io.cwd), revInCheckout(values.repo, values.head, io.cwd)]);
    judgment = await judge({ source: values.repo, base, head, task: values.task ?? null, dataDir, exactBase: values["exact-base"] });
  } catch (err) {
    if (err instanceof CannotJudge) {
      io.stderr(`ranex judge: cannot judge: ${err.message.split("\n")[0]}\n`);
      return 2;
    }
    throw err;
  }
  const { verdict, timings } = judgment;
  // Signing and journalling happen here, after the measuring process group has exited.
  const started = performance.now();
  const recorded = await recordVerdict(verdict, {
    dataDir, keyPath: values.key ?? io.env.RANEX_SIGNING_KEY_PATH, databaseUrl: io.env.DATABASE_URL,
    time: new Date().toISOString(),
  });
  timings.sign = Math.round(performance.now() - started);
  const journal = { id: recorded.entry.id, sequence: recorded.entry.sequence, hash: recorded.entry.hash };
  if (values.json) {
    io.stdout(JSON.stringify(verdictJson(verdict, timings, { envelope: recorded.envelope, journal, keyId: recorded.keyId })) + "\n");
  } else {
    io.stdout(renderTable(verdict, timings));
    io.stdout(`signed by key ${recorded.keyId.slice(0, 16)}…, journal entry ${journal.id} (${journal.hash.slice(0, 16)}…)\n`);
  }
  // Not part of the verdict (the base commit alone decides): why the local checkout's file is not on the base.
  for (const note of await missingFileNotes(verdict, resolve(io.cwd, values.repo), values.task)) io.stderr(`note: ${note}\n`);
  return verdict.verdict === "FAIL" ? 1 : 0;
};

/** The policy or task file the verdict says the base lacks, when a local checkout tells why (git ignores it, or it is not committed). */
async function missingFileNotes(verdict: Verdict, checkout: string, task: string | undefined): Promise<string[]> {
  const failed = verdict.claims.find((c) => c.name === POLICY_CLAIM && c.status !== "pass");
  if (failed === undefined) return [];
  const paths = [
    ...failed.reason.startsWith(`no ${POLICY_PATH} on`) ? [POLICY_PATH] : [],
    ...task !== undefined && failed.reason.startsWith(`no task '${task}' on`) ? [taskPath(task)] : [],
  ];
  const notes = await Promise.all(paths.map((path) => whyNotOnBase(checkout, path)));
  return notes.filter((n): n is string => n !== null);
}
