// `ranex protect --repo owner/name [--branch b] [--ruleset] [--merge-queue] [--dry-run] [--app-id n]`:
// make the branch require ranex/judge and ranex/approval, an approving review of the latest push with
// stale approvals dismissed, no exception for admins, and what makes the judged commit the one that
// lands: branches up to date before merging (default), or a merge queue (`--merge-queue`, a ruleset).
// Token from GITHUB_TOKEN; GitHub Enterprise via GHE_HOST.
import { parseArgs } from "node:util";
import { Octokit } from "@octokit/rest";
import { applyProtection, planProtection } from "../../github/protection/apply.js";
import { UsageError, type Command } from "../io.js";

const USAGE = "usage: ranex protect --repo owner/name [--branch <b>] [--ruleset] [--merge-queue] [--dry-run] [--app-id <id>]";

export const run: Command = async (args, io) => {
  const values = parse(args);
  const [owner, repo, extra] = (values.repo ?? "").split("/");
  if (owner === undefined || owner === "" || repo === undefined || repo === "" || extra !== undefined) throw new UsageError(`--repo must be owner/name\n${USAGE}`);
  const token = io.env.GITHUB_TOKEN;
  if (token === undefined || token === "") throw new UsageError("GITHUB_TOKEN is not set: a token with administration write on the repository is needed");
  const appId = appIdOf(values["app-id"] ?? io.env.RANEX_APP_ID ?? io.env.APP_ID);
  const octokit = new Octokit({ auth: token, baseUrl: baseUrlOf(io.env), userAgent: "ranex-gate protect", request: { retries: 0 } });
  const branch = values.branch ?? (await octokit.rest.repos.get({ owner, repo })).data.default_branch;
  const lands = values["merge-queue"] === true ? "merge-queue" : "up-to-date";
  // Only a ruleset can require a merge queue (classic protection has no such setting in the API).
  const ruleset = values.ruleset === true || lands === "merge-queue";
  const plan = await planProtection(octokit, { repo: { owner, repo }, branch, appId, ruleset, lands });
  const where = `${owner}/${repo} ${branch}${ruleset ? " (ruleset)" : " (branch protection)"}`;
  if (plan.changes.length === 0) {
    const landing = lands === "merge-queue" ? "a merge queue" : "branches up to date before merging";
    io.stdout(`${where}: already requires ranex/judge and ranex/approval, an approval of the latest push, no admin bypass and ${landing}; nothing to change\n`);
    return 0;
  }
  const list = plan.changes.map((c) => `  - ${c}\n`).join("");
  if (values["dry-run"] === true) {
    io.stdout(`${where}: would change (dry run, nothing sent):\n${list}\n${plan.method} ${plan.path}\n${JSON.stringify(plan.body, null, 2)}\n`);
    return 0;
  }
  await applyProtection(octokit, plan);
  io.stdout(`${where}: changed:\n${list}`);
  if (appId === null) io.stdout("note: the checks are not pinned to the app; pass --app-id (or set APP_ID) so no other app can post them\n");
  return 0;
};

function parse(args: string[]) {
  try {
    return parseArgs({
      args, allowPositionals: false,
      options: { repo: { type: "string" }, branch: { type: "string" }, ruleset: { type: "boolean" }, "merge-queue": { type: "boolean" }, "dry-run": { type: "boolean" }, "app-id": { type: "string" } },
    }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
}

function appIdOf(text: string | undefined): number | null {
  if (text === undefined || text === "") return null;
  const id = Number(text);
  if (!Number.isSafeInteger(id) || id <= 0) throw new UsageError(`the app id must be a positive number, got ${JSON.stringify(text)}`);
  return id;
}

/** https://api.github.com, or https://GHE_HOST/api/v3 for GitHub Enterprise Server (as the app). */
function baseUrlOf(env: Readonly<Record<string, string | undefined>>): string {
  const host = env.GHE_HOST;
  if (host === undefined || host === "") return "https://api.github.com";
  return `${env.GHE_PROTOCOL || "https"}://${host.replace(/^https?:\/\//, "").replace(/\/.*$/, "")}/api/v3`;
}
