// Completes a check run of this app that was left open (issue 21): its writes were refused for the
// whole retry window, or it stayed `queued`/`in_progress` past the deadline (the process judging it
// died with nothing left to take it again). What it gets: the completion the app meant to send (the
// outbox: a journalled verdict, or a cancellation, or an error), with a line naming the delay; when
// nothing was meant, a FAIL naming why. Never a passing conclusion the app did not decide.
import type { GitHub } from "../check-runs.js";
import { OUTPUT_TEXT_LIMIT } from "../limits.js";
import { refusalReason } from "../write-retry.js";
import type { CheckRecord } from "../../queue/types.js";

export interface OpenRun {
  owner: string;
  repo: string;
  id: number;
  status: string;
  /** ms since the epoch: when the run was started (or created). */
  startedAt: number;
}

/** Why the run is being completed by the sweep, in words a person understands. */
export function leftOpenReason(run: OpenRun, record: CheckRecord | null, now: number): string {
  if (record?.refused != null) return refusalReason(record.refused.status, now - record.refused.since);
  const minutes = Math.max(1, Math.round((now - run.startedAt) / 60_000));
  return `this check run was left ${run.status.replace("_", " ")} for ${minutes} minutes with no verdict posted (the process judging it stopped, or GitHub refused its writes)`;
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
  return {
    status: "completed", conclusion: "failure", completed_at: now.toISOString().replace(/\.\d{3}Z$/, "Z"),
    output: {
      title: `FAIL: ${reason}`.slice(0, 255),
      summary: `Ranex Gate could not post a verdict on this check run, so it fails closed.\n\n**Reason:** ${reason}.\n\nNothing was measured to a verdict that could be posted here. A person with write access can comment \`/ranex rejudge\` to judge this head again.`,
    },
  };
}

/**
 * Sends the settling body, once: the write retry's window is not waited out here (the body names how
 * long the outage lasted, so it is sent as it stands now or by the next sweep).
 */
export async function settleOpenRun(octokit: GitHub, run: OpenRun, record: CheckRecord | null, now: Date): Promise<void> {
  await octokit.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
    owner: run.owner, repo: run.repo, check_run_id: run.id, ...settlingBody(run, record, now), request: { writeWindowMs: 0 },
  });
}
