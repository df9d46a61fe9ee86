// The `ranex/judge` check run: created `queued` the moment a webhook arrives, `in_progress` while
// measuring, `completed` with the verdict. Annotations go 50 per request, as the API demands.
import type { ProbotOctokit } from "probot";
import type { Annotation } from "./pull-request/annotations.js";
import { CHECK_NAME } from "./deps.js";
import { batches, cutTitle, cutToFit, OUTPUT_TEXT_LIMIT } from "./limits.js";

export type GitHub = InstanceType<typeof ProbotOctokit>;

export interface RepoRef {
  owner: string;
  repo: string;
}

/** `neutral` only ever means "not an agent's PR"; a judgment cut short is `cancelled`. */
export type Conclusion = "success" | "failure" | "neutral" | "cancelled";

export interface Completion {
  conclusion: Conclusion;
  title: string;
  summary: string;
  text?: string;
  annotations?: readonly Annotation[];
  externalId?: string;
  detailsUrl?: string;
  completedAt: Date;
}

export async function createQueuedCheck(octokit: GitHub, repo: RepoRef, head: string): Promise<number> {
  const { data } = await octokit.rest.checks.create({ ...repo, name: CHECK_NAME, head_sha: head, status: "queued" });
  return data.id;
}

/**
 * Creates the check run already `in_progress` (issue 21: one write where queued + in_progress took
 * two). `stop` ends its retries once the status no longer matters (the verdict is ready).
 */
export async function createStartedCheck(octokit: GitHub, repo: RepoRef, head: string, startedAt: Date, stop?: AbortSignal): Promise<number> {
  const { data } = await octokit.rest.checks.create({ ...repo, name: CHECK_NAME, head_sha: head, status: "in_progress", started_at: iso(startedAt), ...stopping(stop) });
  return data.id;
}

export async function markInProgress(octokit: GitHub, repo: RepoRef, checkRunId: number, startedAt: Date, stop?: AbortSignal): Promise<void> {
  await octokit.rest.checks.update({ ...repo, check_run_id: checkRunId, status: "in_progress", started_at: iso(startedAt), ...stopping(stop) });
}

export async function completeCheck(octokit: GitHub, repo: RepoRef, checkRunId: number, done: Completion): Promise<void> {
  const { fields, output, rest } = completion(done);
  await octokit.rest.checks.update({ ...repo, check_run_id: checkRunId, ...fields });
  await appendAnnotations(octokit, repo, checkRunId, output, rest);
}

/** A check run whose verdict is known when it is created: one write (issue 21). */
export async function createCompletedCheck(octokit: GitHub, repo: RepoRef, head: string, done: Completion): Promise<number> {
  const { fields, output, rest } = completion(done);
  const { data } = await octokit.rest.checks.create({ ...repo, name: CHECK_NAME, head_sha: head, ...fields });
  await appendAnnotations(octokit, repo, data.id, output, rest);
  return data.id;
}

function completion(done: Completion) {
  const title = cutTitle(done.title);
  const summary = cutToFit(done.summary, OUTPUT_TEXT_LIMIT, (n) => `_… ${n} characters cut to stay within GitHub's limit._`);
  const output = { title, summary, ...(done.text === undefined ? {} : { text: done.text }) };
  const [first = [], ...rest] = batches(done.annotations ?? []);
  const fields = {
    status: "completed" as const, conclusion: done.conclusion, completed_at: iso(done.completedAt),
    ...(done.externalId === undefined ? {} : { external_id: done.externalId }),
    ...(done.detailsUrl === undefined ? {} : { details_url: done.detailsUrl }),
    output: first.length === 0 ? output : { ...output, annotations: first },
  };
  return { fields, output, rest };
}

/** Each further update appends its annotations to the ones already posted. */
async function appendAnnotations(octokit: GitHub, repo: RepoRef, checkRunId: number, output: { title: string; summary: string; text?: string }, rest: Annotation[][]): Promise<void> {
  for (const batch of rest) {
    await octokit.rest.checks.update({ ...repo, check_run_id: checkRunId, output: { ...output, annotations: batch } });
  }
}

/** The write retry's early stop (src/github/write-retry.ts), carried in Octokit's request options. */
function stopping(stop: AbortSignal | undefined): { request?: { stopRetrying: AbortSignal } } {
  return stop === undefined ? {} : { request: { stopRetrying: stop } };
}

/** A short completion without a verdict: not an agent PR, superseded, closed, refused, or an error. */
export async function closeCheck(octokit: GitHub, repo: RepoRef, checkRunId: number, conclusion: Conclusion, title: string, summary: string, at: Date): Promise<void> {
  await completeCheck(octokit, repo, checkRunId, { conclusion, title, summary, completedAt: at });
}

/** GitHub wants `YYYY-MM-DDTHH:MM:SSZ`. */
function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
