// `/ranex explain`: the latest verdict for the PR's head in plain words. A template over the check
// run people already see, never a model. A CANDIDATE measured on a base tip the branch has since
// moved on from says so: what lands is the head merged into the new tip, which was not measured.
import { statementOf, VERDICT_PREDICATE_TYPE, type VerdictPredicate } from "../../attest/index.js";
import type { GitHub, RepoRef } from "../check-runs.js";
import { CHECK_NAME, type AppDeps } from "../deps.js";
import { briefForCheckRun } from "./brief.js";

/** `findEntry` (the journal) also adds the reviewer's brief to a CANDIDATE (./brief.ts, issue 13). */
export interface ExplainContext {
  /** The PR's base branch: its tip now is compared with the tip the verdict was measured on. */
  baseRef?: string;
  /** Reads the verdict's journal entry (the check run's external_id) for the base it measured. */
  findEntry?: AppDeps["findEntry"];
}

export async function explainHead(octokit: GitHub, repo: RepoRef, head: string, context: ExplainContext = {}): Promise<string> {
  const { data } = await octokit.rest.checks.listForRef({ ...repo, ref: head, check_name: CHECK_NAME, filter: "latest" });
  const sha7 = head.slice(0, 7);
  const latest = [...data.check_runs].sort((a, b) => b.id - a.id)[0];
  if (latest === undefined) return `There is no \`${CHECK_NAME}\` verdict for \`${sha7}\` yet.`;
  const title = latest.output.title ?? "";
  if (latest.status !== "completed") return `\`${sha7}\` is being judged right now (${latest.status}). Ask again when \`${CHECK_NAME}\` completes.`;
  switch (latest.conclusion) {
    case "success": {
      const brief = await briefForCheckRun(context.findEntry, latest.external_id);
      return [
        `**CANDIDATE** for \`${sha7}\`: every claim the policy requires has evidence, and it holds.`,
        `That is not a pass. The gate checked what it can check: the agent left frozen files alone, stayed in scope, added no secrets, and the tests it targets went from red to green without breaking others. Whether the change is *right* is for a person to decide: someone who did not write it must review and approve this exact commit.`,
        ...(brief === null ? [] : [brief]),
        ...await baseMovedNote(octokit, repo, latest.external_id ?? null, context),
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

/** One paragraph when the verdict's base tip is not the branch's tip any more; nothing otherwise. */
async function baseMovedNote(octokit: GitHub, repo: RepoRef, journalId: string | null, context: ExplainContext): Promise<string[]> {
  if (context.baseRef === undefined || context.findEntry === undefined || journalId === null || journalId === "") return [];
  const measured = measuredBase(await context.findEntry(journalId));
  if (measured === null) return [];
  const { data } = await octokit.rest.repos.getBranch({ ...repo, branch: context.baseRef });
  const tip = data.commit.sha;
  if (tip === measured) return [];
  return [
    `**The base has moved on.** This CANDIDATE was measured on \`${context.baseRef}\` at \`${measured.slice(0, 7)}\`; \`${context.baseRef}\` is now at \`${tip.slice(0, 7)}\`. What would land is this head merged into \`${tip.slice(0, 7)}\`, and that was not measured. Merge or rebase the base branch into the pull request (a new head is judged), ask a maintainer for \`/ranex rejudge\`, or set \`tests.rejudge_on_base_push: true\` in \`.github/ranex.yml\`; requiring branches to be up to date before merging (\`ranex protect\`) makes the judged head the one that lands.`,
  ];
}

/** The base tip a journalled verdict was measured on, or null when the entry is not a verdict. */
function measuredBase(entry: unknown): string | null {
  const statement = statementOf((entry as { payload?: unknown } | null)?.payload);
  if (statement === null || statement.predicateType !== VERDICT_PREDICATE_TYPE) return null;
  const base = (statement.predicate as VerdictPredicate).subject?.base;
  return typeof base === "string" && base !== "" ? base : null;
}
