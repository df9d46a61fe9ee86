// The durable queue behind the app: what webhooks put in and judge workers take out. The unit of work
// is one verified webhook delivery (serialisable, unlike the in-process runner's closures); the
// worker replays it through the app's own handlers. Two stores implement it: SQLite in the data dir
// (one process, nothing else to start) and pg-boss on Postgres (many webhook and worker processes).
import type { WriteSlots } from "../github/write-throttle.js";

/** A delivery as the webhook receiver verified it. */
export interface Delivery {
  /** `X-GitHub-Delivery`: the idempotency key. */
  id: string;
  /** `X-GitHub-Event`. */
  name: string;
  payload: unknown;
}

/** Where a delivery stands in the (repository, pull request) race: `owner/name#7` and its head. */
export interface Coalescing {
  key: string;
  head: string;
}

export interface ClaimedDelivery extends Delivery {
  /** 1 for the first try. */
  attempt: number;
  /** True when a failure now is final: the worker must complete its checks `failure` itself. */
  lastAttempt: boolean;
  /** When the webhook was accepted (ms since epoch): queue wait is measured from here. */
  enqueuedAt: number;
}

/** A check run a delivery's handling created, and what the worker knows of its completion. */
export interface CheckRecord {
  delivery: string;
  owner: string;
  repo: string;
  id: number;
  /** The last completing PATCH body the app tried to send (an outbox), or null. */
  completion: Record<string, unknown> | null;
  /** Whether `completion` carries a journalled verdict (an `external_id`). */
  verdict: boolean;
  /** Whether GitHub acknowledged the completion. */
  posted: boolean;
  /**
   * Set when GitHub refused this check run's writes for the whole retry window (issue 21): the
   * reconcile sweep completes it once GitHub answers again. `status` is the last HTTP status.
   */
  refused: { status: number | null; since: number } | null;
}

/**
 * A check run a delivery's handling asked GitHub to create, stored before the request is sent. A
 * process killed between GitHub creating the run and the app recording its id leaves a run that
 * no record names; the next try finds it by head and name (and completes it as interrupted).
 */
export interface CreateIntent {
  owner: string;
  repo: string;
  head: string;
  name: string;
  /** When the request was about to be sent (ms since epoch). */
  at: number;
}

/**
 * A check run created already completed (ranex/approval, a known verdict) whose creation GitHub
 * refused for the whole window has no id on GitHub: it is held under a negative placeholder id, and
 * the sweep creates it once GitHub answers.
 */
export function isRefusedCreation(record: Pick<CheckRecord, "id">): boolean {
  return record.id < 0;
}

/** A placeholder id for a refused creation: negative, unique enough across processes (seconds × a million + random). */
export function placeholderId(now: number, random: number): number {
  return -(Math.floor(now / 1000) * 1_000_000 + Math.floor(random * 1_000_000));
}

export interface EnqueueOptions {
  /** Taken only when no ordinary delivery waits (re-judgments after a base branch moved on). */
  low?: boolean;
}

export interface QueueDepth {
  /** Waiting, including retries waiting out their backoff. */
  queued: number;
  active: number;
}

export type DeliveryHandler = (delivery: ClaimedDelivery) => Promise<void>;

export interface DeliveryQueue {
  readonly kind: "sqlite" | "postgres";
  /**
   * Stores the delivery durably; false when its id was seen before (a redelivery: nothing is
   * queued). With a coalescing key, that key's newest head becomes this one.
   */
  enqueue(delivery: Delivery, coalescing: Coalescing | null, options?: EnqueueOptions): Promise<boolean>;
  /** Starts taking deliveries, at most `concurrency` at a time; a handler that throws is retried. */
  work(concurrency: number, handler: DeliveryHandler): Promise<void>;
  /** The newest head enqueued for a coalescing key, or null. */
  latestHead(key: string): Promise<string | null>;
  recordCheck(delivery: string, owner: string, repo: string, id: number): Promise<void>;
  /** Keeps a check run creation before it is sent; the first intent per head and name is kept. */
  recordCreating(delivery: string, intent: CreateIntent): Promise<void>;
  /** The creations a delivery's tries asked for, recorded or not. */
  creatingOf(delivery: string): Promise<CreateIntent[]>;
  /**
   * Keeps a completion body before it is sent. A verdict body is never replaced by a body without
   * one: then the held verdict is returned, to be sent instead. Returns the body to send.
   */
  recordCompletion(id: number, body: Record<string, unknown>, verdict: boolean): Promise<Record<string, unknown>>;
  markPosted(id: number): Promise<void>;
  /** GitHub refused the check run's writes for the whole window: the sweep takes it over. */
  markRefused(id: number, status: number | null, since: number): Promise<void>;
  checksOf(delivery: string): Promise<CheckRecord[]>;
  /** One check run's record, or null when no delivery of this store created it. */
  checkRecord(id: number): Promise<CheckRecord | null>;
  /** Check runs whose writes were refused and that are not completed yet (for the sweep). */
  refusedChecks(): Promise<CheckRecord[]>;
  /**
   * Check runs created through a delivery whose completion GitHub never acknowledged, not marked
   * refused: in flight, or left open by a try that could not complete them (for the sweep).
   */
  unpostedChecks(): Promise<CheckRecord[]>;
  /** Write slots all workers share (Postgres); absent when one process owns the store. */
  readonly writeSlots?: WriteSlots;
  depth(): Promise<QueueDepth>;
  /** Throws when the store cannot be reached (health). */
  ping(): Promise<void>;
  /** Stops taking work, waits for running handlers up to `graceMs`, closes. */
  stop(graceMs?: number): Promise<void>;
}

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** The wait before the second try; doubled for each later one. */
  delayMs: number;
  /**
   * How long a claimed delivery may run before it counts as abandoned (its worker died) and is taken
   * again: the judge's own time limits plus a grace.
   */
  leaseMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, delayMs: 5_000, leaseMs: 45 * 60_000 };

/** The backoff before try `attempt + 1`. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  return policy.delayMs * 2 ** Math.max(0, attempt - 1);
}
