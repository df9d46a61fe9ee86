// `/ranex explain`: the latest verdict for the PR's head in plain words. A template over the check
// run people already see, never a model.
import type { GitHub, RepoRef } from "../check-runs.js";
import { CHECK_NAME } from "../deps.js";
import { briefForCheckRun } from "./brief.js";

/** `findEntry` (the journal) adds the reviewer's brief to a CANDIDATE (./brief.ts, issue 13). */
export async function explainHead(octokit: GitHub, repo: RepoRef, head: string, findEntry?: (id: string) => Promise<unknown>): Promise<string> {
  const { data } = await octokit.rest.checks.listForRef({ ...repo, ref: head, check_name: CHECK_NAME, filter: "latest" });
  const sha7 = head.slice(0, 7);
  const latest = [...data.check_runs].sort((a, b) => b.id - a.id)[0];
  if (latest === undefined) return `There is no \`${CHECK_NAME}\` verdict for \`${sha7}\` yet.`;
  const title = latest.output.title ?? "";
  if (latest.status !== "completed") return `\`${sha7}\` is being judged right now (${latest.status}). Ask again when \`${CHECK_NAME}\` completes.`;
  switch (latest.conclusion) {
    case "success": {
      const brief = await briefForCheckRun(findEntry, latest.external_id);
      return [
        `**CANDIDATE** for \`${sha7}\`: every claim the policy requires has evidence, and it holds.`,
        `That is not a pass. The gate checked what it can check: the agent left frozen files alone, stayed in scope, added no secrets, and the tests it targets went from red to green without breaking others. Whether the change is *right* is for a person to decide: someone who did not write it must review and approve this exact commit.`,
        ...(brief === null ? [] : [brief]),
      ].join("\n\n");
    }
    case "failure":
      return [
        `**FAIL** for \`${sha7}\`: ${title}`,
        `At least one required claim failed or has no evidence. The check run lists each claim with its reason and marks the offending lines. The agent has to fix them and push a new commit; re-running the same commit gives the same answer.`,
      ].join("\n\n");
    case "neutral":
      return `No verdict for \`${sha7}\`: ${title}.`;
    default:
      return `The latest \`${CHECK_NAME}\` run for \`${sha7}\` ended \`${latest.conclusion ?? "without a conclusion"}\`: ${title}`;
  }
}
