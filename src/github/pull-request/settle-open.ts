// Completes a check run of this app that was left open (issue 21): its writes were refused for the
// whole retry window, or it stayed `queued`/`in_progress` past the deadline (the process judging it
// died with nothing left to take it again). What it gets: the completion the app meant to send (the
// outbox: a journalled verdict, an approval decision, a cancellation, or an error), with a line
// naming the delay; when nothing was meant, a failure naming why. Never a passing conclusion the app
// did not decide. A check run whose creation was refused (created already completed: ranex/approval,
// a known verdict) is created now with the body that was refused.
import type { GitHub } from "../check-runs.js";
import { OUTPUT_TEXT_LIMIT } from "../limits.js";
import { APPROVAL_CHECK } from "../protection/protection.js";
import { refusalReason } from "../write-retry.js";
import { isRefusedCreation, type CheckRecord } from "../../queue/types.js";

export interface OpenRun {
  owner: string;
  repo: string;
  id: number;
  /** The check run's name when known (`ranex/judge` unless said otherwise). */
  name?: string;
  status: string;
  /** ms since the epoch: when the run was started (or created). */
  startedAt: number;
}

/** Why the run is being completed by the sweep, in words a person understands. */
export function leftOpenReason(run: OpenRun, record: CheckRecord | null, now: number): string {
  if (record?.refused != null) return refusalReason(record.refused.status, now - record.refused.since);
  const minutes = Math.max(1, Math.round((now - run.startedAt) / 60_000));
  const missing = run.name === APPROVAL_CHECK ? "no approval decision" : "no verdict";
  return `this check run was left ${run.status.replace("_", " ")} for ${minutes} minutes with ${missing} posted (the process judging it stopped, or GitHub refused its writes)`;
}

/** The completing body the sweep sends. */
export function settlingBody(run: OpenRun, record: CheckRecord | null, now: Date): Record<string, unknown> {
  const reason = leftOpenReason(run, record, now.getTime());
  const held = record?.completion ?? null;
  if (held !== null) {
    const output = (held.output ?? {}) as { title?: string; summary?: string };
    const note = `_Posted late by the reconcile sweep: ${reason}._\n\n`;
    const summary = output.summary ?? "";
    return { ...held, output: { ...output, summary: note.length + summary.length <= OUTPUT_TEXT_LIMIT ? `${note}${summary}` : summary } };
  }
  const completed = { status: "completed", conclusion: "failure", completed_at: now.toISOString().replace(/\.\d{3}Z$/, "Z") };
  if (run.name === APPROVAL_CHECK) {
    // No decision reached GitHub: no approval counts until one is decided (never neutral or success).
    return {
      ...completed,
      output: {
        title: `not approved: ${reason}`.slice(0, 255),
        summary: `Ranex Gate could not post an approval decision on this check run, so it fails closed: no approval counts for this commit until one is decided.\n\n**Reason:** ${reason}.\n\nA new review, or Re-run on \`${APPROVAL_CHECK}\`, decides again from the reviews.`,
      },
    };
  }
  return {
    ...completed,
    output: {
      title: `FAIL: ${reason}`.slice(0, 255),
      summary: `Ranex Gate could not post a verdict on this check run, so it fails closed.\n\n**Reason:** ${reason}.\n\nNothing was measured to a verdict that could be posted here. A person with write access can comment \`/ranex rejudge\` to judge this head again; a merge group's commit is judged anew when its pull requests are queued again.`,
    },
  };
}

/**
 * Sends the settling body, once: the write retry's window is not waited out here (the body names how
 * long the outage lasted, so it is sent as it stands now or by the next sweep).
 */
export async function settleOpenRun(octokit: GitHub, run: OpenRun, record: CheckRecord | null, now: Date): Promise<void> {
  const body = settlingBody(run, record, now);
  if (isRefusedCreation(run)) {
    await octokit.request("POST /repos/{owner}/{repo}/check-runs", { owner: run.owner, repo: run.repo, ...body as { name: string; head_sha: string }, request: { writeWindowMs: 0 } });
    return;
  }
  await octokit.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
    owner: run.owner, repo: run.repo, check_run_id: run.id, ...body, request: { writeWindowMs: 0 },
  });
}
