// ranex/judge while an override is in force (issue 23): posted when `/ranex override` is allowed,
// and again whenever the same inputs' recorded verdict is posted while its override stands.
import type { Logger } from "probot";
import { statementOf, type DsseEnvelope, type VerdictPredicate } from "../../attest/index.js";
import { anchorOf, type JournalEntry } from "../../journal/index.js";
import type { Verdict } from "../../kernel/index.js";
import { approvalAfterOverride, approvalPolicyOf } from "../approval/approval.js";
import { postApproval, renderApproval } from "../approval/check.js";
import { decorationNotice } from "../approval/hooks.js";
import type { GitHub } from "../check-runs.js";
import { agentsUrl, CHECK_NAME, detailsUrl, type AppDeps } from "../deps.js";
import { readBasePolicy } from "./agents.js";
import { annotationsOf } from "./annotations.js";
import { renderOverridden, type OverrideShown } from "./render-override.js";
import { renderOutput } from "./render.js";
import { PullRequestStore, type RecordedOverride } from "./store.js";
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

/**
 * The base branch moved on (a push to it): every override in force on a pull request into it ends,
 * and the measured verdict is posted again on that head with the reason (issue 23). What lands now
 * is the head merged into a tip nobody overrode anything on. Never throws: a push is not a verdict.
 */
export async function endOverridesOnBasePush(ctx: { octokit: GitHub; log: Logger }, deps: AppDeps, repo: PullTarget["repo"], branch: string, tip: string): Promise<void> {
  const store = new PullRequestStore(deps.dataDir);
  const repository = `${repo.owner}/${repo.repo}`;
  for (const o of store.overridesInto(repository, branch)) {
    if (o.base === tip || !store.endOverride(repository, o.pull, o.verdictEntry, `base ${branch} moved to ${tip}`)) continue;
    try {
      const entry = await deps.findEntry(o.verdictEntry) as JournalEntry | null;
      const statement = entry === null ? null : statementOf(entry.payload);
      if (entry === null || statement === null) throw new Error(`the overridden verdict ${o.verdictEntry} is not in this gate's journal`);
      const p = statement.predicate as VerdictPredicate;
      const verdict: Verdict = { verdict: p.verdict, class: p.class, subject: p.subject, claims: p.claims, missing: p.missing, reasons: p.reasons };
      const note = `The override by @${o.by} ended: \`${branch}\` moved on from \`${o.base.slice(0, 7)}\` to \`${tip.slice(0, 7)}\`, and what would land now was not measured. This is the measured verdict again; a new push or \`/ranex rejudge\` judges the head on the new base.`;
      const agents = agentsUrl(deps, repository);
      const output = renderOutput({ verdict, timings: {}, envelope: entry.payload as DsseEnvelope, journalId: entry.id, draft: false, notes: [note], anchor: anchorOf(entry), ...(agents === undefined ? {} : { agentsUrl: agents }) });
      const at = deps.clock().toISOString().replace(/\.\d{3}Z$/, "Z");
      const details = detailsUrl(deps, entry.id);
      await ctx.octokit.rest.checks.create({
        ...repo, name: CHECK_NAME, head_sha: o.head, status: "completed", conclusion: "failure", completed_at: at, external_id: entry.id,
        output: { ...output, annotations: annotationsOf(verdict).slice(0, 50) }, ...(details === undefined ? {} : { details_url: details }),
      });
      if (deps.mergeAuthority !== undefined) {
        await postApproval(ctx.octokit, repo, o.head, renderApproval({ kind: "judge-fail", head: o.head, judgeEntry: entry.id }, null), null, deps.clock());
      }
      ctx.log.info({ pr: o.pull, override: o.journalId }, "the base moved on: the override ended");
    } catch (err) {
      ctx.log.error(err, "could not post the measured verdict again after an override ended");
    }
  }
}
