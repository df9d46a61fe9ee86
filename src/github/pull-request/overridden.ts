// ranex/judge while an override is in force (issue 23): posted when `/ranex override` is allowed,
// and again whenever the same inputs' recorded verdict is posted while its override stands.
import type { Logger } from "probot";
import type { Verdict } from "../../kernel/index.js";
import { approvalAfterOverride, approvalPolicyOf } from "../approval/approval.js";
import { decorationNotice } from "../approval/hooks.js";
import type { GitHub } from "../check-runs.js";
import { agentsUrl, CHECK_NAME, detailsUrl, type AppDeps } from "../deps.js";
import { readBasePolicy } from "./agents.js";
import { annotationsOf } from "./annotations.js";
import { renderOverridden, type OverrideShown } from "./render-override.js";
import type { RecordedOverride } from "./store.js";
import type { JudgeCheck } from "./judge-check.js";
import type { PullTarget } from "./target.js";

/**
 * Posts ranex/judge as overridden (a completed check run of its own, so GitHub keeps the measured
 * one beside it) and ranex/approval waiting for an independent approval. Also used when the same
 * inputs' recorded verdict is posted again while its override is in force.
 */
export async function postOverridden(
  ctx: { octokit: GitHub; log: Logger }, deps: AppDeps, target: PullTarget, verdict: Verdict, verdictEntry: string,
  envelope: Parameters<typeof renderOverridden>[0]["envelope"], override: RecordedOverride, check: JudgeCheck | null = null,
): Promise<void> {
  const notice = await decorationNotice(ctx, deps, target);
  const shown: OverrideShown = { by: override.by, reason: override.reason, at: override.at, journalId: override.journalId, anchor: override.anchor };
  const agents = agentsUrl(deps, `${target.repo.owner}/${target.repo.repo}`);
  const output = renderOverridden({ verdict, timings: {}, envelope, journalId: verdictEntry, draft: target.draft, notice, ...(agents === undefined ? {} : { agentsUrl: agents }) }, shown);
  const fields = {
    status: "completed" as const, conclusion: "success" as const, completed_at: deps.clock().toISOString().replace(/\.\d{3}Z$/, "Z"),
    external_id: override.journalId, output: { ...output, annotations: annotationsOf(verdict).slice(0, 50) },
    ...(detailsUrl(deps, verdictEntry) === undefined ? {} : { details_url: detailsUrl(deps, verdictEntry) }),
  };
  // A judgment's own check run is completed through its JudgeCheck (the write retry and the outbox, issue 21).
  if (check === null) await ctx.octokit.rest.checks.create({ ...target.repo, name: CHECK_NAME, head_sha: target.head, ...fields });
  else {
    const details = detailsUrl(deps, verdictEntry);
    await check.complete({
      conclusion: "success", ...output, annotations: annotationsOf(verdict), externalId: override.journalId,
      ...(details === undefined ? {} : { detailsUrl: details }), completedAt: deps.clock(),
    });
  }
  const authority = deps.mergeAuthority;
  if (authority === undefined) return;
  const policy = approvalPolicyOf(await readBasePolicy(ctx.octokit, target.repo, verdict.subject.base));
  await approvalAfterOverride(
    { octokit: ctx.octokit, log: ctx.log, deps, authority, notice, target: { repo: target.repo, number: target.number, head: target.head, author: target.author } },
    verdict, verdictEntry, { journalId: override.journalId, by: override.by }, policy,
  );
}
