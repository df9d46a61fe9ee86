// The in-process job runner: judge jobs coalesced per pull request, each delivery judged once, and
// no more jobs at a time than the machine has cores. The server runs judge jobs through the durable
// queue instead (src/queue: QueueJobRunner implements this JobRunner interface); tests use this one.
import { availableParallelism } from "node:os";

export interface Job {
  /** Jobs with the same key coalesce: a newer one supersedes the older (`owner/name#7`). */
  key: string;
  /** The head sha this job judges: named in the "superseded by" note of the older job. */
  head: string;
  /**
   * Does the work. When the signal aborts (signal.reason is a Superseded or a Closed), the job must
   * complete its check run `cancelled` itself: only it knows how far it got.
   */
  run: (signal: AbortSignal) => Promise<void>;
}

/** The reason a job's signal aborts: a newer head of the same pull request arrived. */
export class Superseded extends Error {
  override readonly name = "Superseded";
  constructor(readonly by: string) {
    super(`superseded by ${by.slice(0, 7)}`);
  }
}

/** The reason a job's signal aborts: its pull request was closed, so nothing more is posted on it. */
export class Closed extends Error {
  override readonly name = "Closed";
  constructor() {
    super("the pull request was closed");
  }
}

/** The newest "head" of a closed pull request's coalescing key: no head is judged after it. */
export const CLOSED_HEAD = "closed";

export interface JobRunner {
  /**
   * True when a submitted job starts at once (the durable queue already bounded concurrency): its
   * check run is then created `in_progress`, not `queued` and updated a moment later (issue 21).
   */
  readonly startsAtOnce: boolean;
  /** True the first time a delivery id is seen; false for a redelivery, which must do nothing. */
  accept(deliveryId: string): boolean;
  /** Queues a job; an older job with the same key is aborted. */
  submit(job: Job): void;
  /** The pull request was closed: its jobs are aborted with Closed, and none is judged until it reopens. */
  close(key: string): void;
  /** The pull request was reopened: its heads may be judged again. */
  reopen(key: string): void;
  /** Was the pull request closed (and not reopened) after this delivery was sent? */
  isClosed(key: string): Promise<boolean>;
  /** Resolves when nothing is queued or running (tests, shutdown). */
  idle(): Promise<void>;
}

interface Entry {
  job: Job;
  controller: AbortController;
}

/** Delivery ids remembered for deduplication; GitHub redelivers within hours, not weeks. */
const REMEMBERED_DELIVERIES = 10_000;

export class InProcessRunner implements JobRunner {
  /** Jobs wait for a free slot: their check runs show `queued` meanwhile. */
  readonly startsAtOnce = false;
  private readonly pending: Entry[] = [];
  private readonly running = new Set<Entry>();
  private readonly latest = new Map<string, Entry>();
  private readonly deliveries = new Set<string>();
  private readonly closed = new Set<string>();
  private waiters: (() => void)[] = [];

  constructor(
    private readonly concurrency = availableParallelism(),
    private readonly onError: (err: unknown, job: Job) => void = () => {},
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }

  accept(deliveryId: string): boolean {
    if (this.deliveries.has(deliveryId)) return false;
    this.deliveries.add(deliveryId);
    if (this.deliveries.size > REMEMBERED_DELIVERIES) {
      const oldest = this.deliveries.values().next().value;
      if (oldest !== undefined) this.deliveries.delete(oldest);
    }
    return true;
  }

  submit(job: Job): void {
    const older = this.latest.get(job.key);
    if (older !== undefined) older.controller.abort(new Superseded(job.head));
    const entry: Entry = { job, controller: new AbortController() };
    this.latest.set(job.key, entry);
    // A superseded job that never started still runs, at once and outside the limit: it only has to
    // complete its check run `cancelled`, and nothing may be left queued.
    if (older !== undefined && this.pending.includes(older)) {
      this.pending.splice(this.pending.indexOf(older), 1);
      this.start(older);
    }
    this.pending.push(entry);
    this.pump();
  }

  close(key: string): void {
    this.closed.add(key);
    this.latest.get(key)?.controller.abort(new Closed());
  }

  reopen(key: string): void {
    this.closed.delete(key);
  }

  async isClosed(key: string): Promise<boolean> {
    return this.closed.has(key);
  }

  idle(): Promise<void> {
    if (this.pending.length === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.pending.length > 0) {
      const next = this.pending.shift();
      if (next !== undefined) this.start(next);
    }
    if (this.pending.length === 0 && this.running.size === 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private start(entry: Entry): void {
    this.running.add(entry);
    void (async () => {
      try {
        await entry.job.run(entry.controller.signal);
      } catch (err) {
        // Jobs complete their own check runs on failure; this only keeps the runner alive and heard.
        this.onError(err, entry.job);
      } finally {
        this.running.delete(entry);
        if (this.latest.get(entry.job.key) === entry) this.latest.delete(entry.job.key);
        this.pump();
      }
    })();
  }
}
