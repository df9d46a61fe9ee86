// One judgment's `ranex/judge` check run, written as few times as GitHub allows (issue 21): created
// `queued` only when the runner may make the job wait; created `in_progress` when the judgment starts
// at once; created already completed when its verdict is known before anything was posted (a
// recorded verdict, not an agent's PR). So a measured verdict costs two writes, a known one one.
//
// The status update is not the verdict: it is sent beside the measurement, never before it, and its
// failure is logged, never thrown. The completion waits for it (so `in_progress` cannot land after
// `completed`) and ends its retries: once the verdict is ready the status no longer matters.
import type { Logger } from "probot";
import { completeCheck, createCompletedCheck, createQueuedCheck, createStartedCheck, markInProgress, type Completion, type GitHub, type RepoRef } from "../check-runs.js";

export class JudgeCheck {
  /** The check run's id once created (null: its creation failed); null field: not created yet. */
  private id: Promise<number | null> | null = null;
  private progress: { done: Promise<void>; stop: AbortController } | null = null;

  constructor(private readonly octokit: GitHub, private readonly repo: RepoRef, private readonly head: string, private readonly log: Logger) {}

  /** Created `queued` now: the job may wait for a free slot before it starts. */
  async queue(): Promise<void> {
    const id = await createQueuedCheck(this.octokit, this.repo, this.head);
    this.id = Promise.resolve(id);
  }

  /** The measurement starts: the check shows `in_progress`, without holding the measurement up. */
  start(at: Date): void {
    if (this.progress !== null) return;
    const stop = new AbortController();
    let done: Promise<void>;
    if (this.id === null) {
      const created = createStartedCheck(this.octokit, this.repo, this.head, at, stop.signal).catch((err: unknown) => {
        this.log.warn({ err: messageOf(err) }, "could not create the in-progress check run; the verdict creates it completed");
        return null;
      });
      this.id = created;
      done = created.then(() => undefined);
    } else {
      done = this.id.then((id) => (id === null ? undefined : markInProgress(this.octokit, this.repo, id, at, stop.signal))).catch((err: unknown) => {
        this.log.warn({ err: messageOf(err) }, "could not mark the check run in progress; measuring anyway");
      });
    }
    this.progress = { done, stop };
  }

  /** Completes it: one PATCH, or one POST already completed when nothing was created. */
  async complete(done: Completion): Promise<void> {
    if (this.progress !== null) {
      this.progress.stop.abort();
      await this.progress.done;
    }
    const id = this.id === null ? null : await this.id;
    if (id === null) {
      const created = createCompletedCheck(this.octokit, this.repo, this.head, done);
      this.id = created.catch(() => null);
      await created;
    } else {
      await completeCheck(this.octokit, this.repo, id, done);
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
