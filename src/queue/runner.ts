// The JobRunner the app's handlers see inside a queue worker. The queue already bounded concurrency
// and removed redeliveries, so this runner starts each judge job at once, ties it to the delivery
// being handled (which is done only when its jobs are), and aborts it with Superseded when a newer
// head of the same pull request was enqueued, here or in any other process sharing the queue.
import type { Job, JobRunner } from "../github/pull-request/jobs.js";
import { CLOSED_HEAD, Closed, Superseded } from "../github/pull-request/jobs.js";
import { handling } from "./check-recorder.js";
import type { DeliveryQueue } from "./types.js";

/** How often a running job asks the shared store whether a newer head arrived elsewhere. */
const SUPERSEDE_POLL_MS = 2000;

export class QueueJobRunner implements JobRunner {
  readonly startsAtOnce = true;
  private readonly running = new Map<string, { head: string; controller: AbortController }[]>();
  private readonly all = new Set<Promise<void>>();

  constructor(private readonly queue: DeliveryQueue, private readonly onError: (err: unknown, job: Job) => void = () => {}, private readonly pollMs = SUPERSEDE_POLL_MS) {}

  /** The queue removed duplicates when the webhook arrived; a delivery it hands out is to be handled. */
  accept(): boolean {
    return true;
  }

  submit(job: Job): void {
    const controller = new AbortController();
    // A newer head submitted in this process aborts older ones at once.
    for (const older of this.running.get(job.key) ?? []) if (older.head !== job.head) older.controller.abort(new Superseded(job.head));
    const mine = { head: job.head, controller };
    this.running.set(job.key, [...(this.running.get(job.key) ?? []), mine]);
    const done = this.run(job, controller).finally(() => {
      const left = (this.running.get(job.key) ?? []).filter((entry) => entry !== mine);
      if (left.length === 0) this.running.delete(job.key);
      else this.running.set(job.key, left);
      this.all.delete(done);
    });
    this.all.add(done);
    handling.getStore()?.jobs.push(done);
  }

  close(key: string): void {
    // Jobs in other processes see the closed key in the shared store (the receiver wrote it).
    for (const job of this.running.get(key) ?? []) job.controller.abort(new Closed());
  }

  reopen(): void {
    // The receiver already made the reopened head the newest for the key.
  }

  async isClosed(key: string): Promise<boolean> {
    return (await this.queue.latestHead(key)) === CLOSED_HEAD;
  }

  async idle(): Promise<void> {
    while (this.all.size > 0) await Promise.allSettled([...this.all]);
  }

  private async run(job: Job, controller: AbortController): Promise<void> {
    const check = async (): Promise<void> => {
      const latest = await this.queue.latestHead(job.key).catch(() => null);
      if (latest === null || latest === job.head || controller.signal.aborted) return;
      controller.abort(latest === CLOSED_HEAD ? new Closed() : new Superseded(latest));
    };
    await check();
    const timer = setInterval(() => void check(), this.pollMs);
    try {
      await job.run(controller.signal);
    } catch (err) {
      this.onError(err, job);
      throw err;
    } finally {
      clearInterval(timer);
    }
  }
}
