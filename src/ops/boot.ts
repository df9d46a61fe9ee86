// Starts one Ranex Gate process in its roles: the webhook endpoint (verify, store, answer) and/or a
// judge worker (take deliveries from the queue and replay them through the app). `npm start` runs
// both; `ranex worker` only the worker. The queue and journal are SQLite in the data dir unless
// DATABASE_URL points both at Postgres. Every role serves GET /healthz and GET /metrics.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism } from "node:os";
import { pino } from "pino";
import { Probot, type Logger } from "probot";
import type { ServerConfig } from "../github/config.js";
import type { AppDeps } from "../github/deps.js";
import { openJournal } from "../journal/index.js";
import type { GitHub } from "../github/check-runs.js";
import { startSweeps, sweepOnce, type SweepOptions, type SweepResult } from "../github/pull-request/sweep.js";
import { DEFAULT_WRITE_WINDOW_MS, realTime } from "../github/write-retry.js";
import { MemoryWriteSlots } from "../github/write-throttle.js";
import { coalescingOf, DEFAULT_RETRY, deliveryHandler, openQueue, QueueJobRunner, webhookReceiver, type DeliveryQueue, type RetryPolicy } from "../queue/index.js";
import { healthCheck } from "./health.js";
import { Metrics } from "./metrics.js";
import { appOctokit } from "./octokit.js";

export interface BootOptions {
  /** Serve the webhook endpoint. */
  webhooks: boolean;
  /** Deliveries judged at once by this process; 0 runs no worker (a webhook-only replica). */
  concurrency: number;
  retry?: Partial<RetryPolicy>;
  log?: Logger;
  /** Minutes between reconcile sweeps (`RANEX_RECONCILE_MINUTES`); 0 sweeps never. Webhook roles only. */
  reconcileMinutes?: number;
  /** The webhook door's limits on unverified bodies (`doorFrom`). */
  door?: DoorLimits;
  /** How long one check run write is retried (`RANEX_CHECK_WRITE_WINDOW_MINUTES`, default 30). */
  checkWriteWindowMs?: number;
  /** The clock and the wait of retries, throttling and the sweep; real time unless a test injects its own. */
  time?: { now: () => number; sleep: (ms: number, signal?: AbortSignal) => Promise<void> };
}

/** How many unverified webhook bodies, and how many bytes of them, the endpoint holds at once. */
export interface DoorLimits {
  maxUnverified?: number;
  unverifiedBytes?: number;
}

export interface Running {
  port: number;
  queue: DeliveryQueue;
  /** One reconcile sweep now (webhook roles; null otherwise). */
  sweepNow: (() => Promise<SweepResult>) | null;
  /** Stops taking work and listening; running judgments get `graceMs` to finish. */
  close: (graceMs?: number) => Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean | void> | boolean | void;

export async function startRanex(config: ServerConfig, options: BootOptions): Promise<Running> {
  const role = options.webhooks ? (options.concurrency > 0 ? "server" : "webhooks") : "worker";
  const log = options.log ?? (pino({ name: "ranex", level: process.env.LOG_LEVEL ?? "info", base: { role, pid: process.pid } }) as unknown as Logger);
  // Judgments cut off by a crash left their scratch trees behind: nobody else will remove them.
  if (options.concurrency > 0) {
    const { removeOrphanedScratch } = await import("../judge/scratch.js");
    const removed = await removeOrphanedScratch();
    if (removed.length > 0) log.info({ removed }, "removed the scratch folders of judgments whose process is gone");
  }
  const where = { dataDir: config.dataDir, databaseUrl: config.databaseUrl };
  const queue = await openQueue({ ...where, retry: options.retry });
  const journal = await openJournal(where);
  const metrics = new Metrics(queue);
  const time = options.time ?? realTime;
  const clock = (): Date => new Date(time.now());
  const windowMs = options.checkWriteWindowMs ?? DEFAULT_WRITE_WINDOW_MS;
  const deps = await appDeps(config, queue, metrics, log, clock);
  deps.ops = { metrics, health: healthCheck({ queue, journalHead: () => journal.head(), judges: options.concurrency > 0 }) };

  // The app's handlers run in the worker's Probot; its routes (verdicts, health, metrics) are served here.
  const routes: Handler[] = [];
  const probot = new Probot({
    appId: config.appId, privateKey: config.privateKey, secret: config.webhookSecret, baseUrl: config.baseUrl,
    Octokit: appOctokit(log, { retry: { windowMs, ...time }, slots: queue.writeSlots ?? new MemoryWriteSlots(time.now) }), log: log.child({ name: "probot" }),
  });
  const { default: ranexApp } = await import("../index.js");
  await probot.load(ranexApp(deps), { cwd: process.cwd(), addHandler: (handler) => routes.push(handler) });
  if (options.webhooks) {
    routes.unshift(webhookReceiver({
      queue, secret: config.webhookSecret, ...options.door,
      onResult: ({ event, status, seconds, delivery, reason }) => {
        metrics.webhook.observe({ event, status: String(status) }, seconds);
        log.info({ event, delivery, status, durationMs: Math.round(seconds * 1000), ...(reason === undefined ? {} : { reason }) }, "webhook");
      },
    }));
  }
  if (options.concurrency > 0) {
    await queue.work(options.concurrency, deliveryHandler({ queue, probot, log, appId: config.appId, onWait: (s) => metrics.queueWait.observe(s) }));
  }
  const server = await listen(routes, config, log);
  const port = (server.address() as AddressInfo).port;
  log.info({ port, role, queue: queue.kind, concurrency: options.concurrency }, "ranex gate listening");
  // GitHub never redelivers a failed webhook: heads without a ranex/judge check run are found and queued.
  // It also completes check runs left open: refused writes at once, any other past lease + window.
  const minutes = options.reconcileMinutes ?? DEFAULT_RECONCILE_MINUTES;
  const sweepOptions: SweepOptions = {
    app: () => probot.auth() as Promise<GitHub>, installation: (id) => probot.auth(id) as Promise<GitHub>, appId: config.appId,
    deliver: (delivery) => queue.enqueue(delivery, coalescingOf(delivery.name, delivery.payload)),
    clock, log: log.child({ name: "reconcile" }), checks: queue,
    staleAfterMs: { ...DEFAULT_RETRY, ...options.retry }.leaseMs + windowMs,
  };
  const sweeps = options.webhooks && minutes > 0 ? startSweeps(sweepOptions, minutes * 60_000) : null;
  return {
    port, queue, sweepNow: options.webhooks ? () => sweepOnce(sweepOptions) : null,
    close: async (graceMs = 30_000) => {
      sweeps?.stop();
      await sweeps?.running();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue.stop(graceMs);
      await journal.close();
    },
  };
}

async function appDeps(config: ServerConfig, queue: DeliveryQueue, metrics: Metrics, log: Logger, clock: () => Date): Promise<AppDeps> {
  const { judge } = await import("../judge/judge.js");
  const { journalDeps } = await import("../github/journal-deps.js");
  const { mergeAuthority } = await import("../github/approval/deps.js");
  return {
    judge: async (request, signal) => {
      const judgment = await judge({ ...request, signal });
      metrics.observeJudgment(judgment);
      log.info({ repository: request.repository, head: request.head, verdict: judgment.verdict.verdict, timings: judgment.timings }, "judged");
      return judgment;
    },
    ...journalDeps({ dataDir: config.dataDir, keyPath: config.signingKeyPath, databaseUrl: config.databaseUrl }),
    dataDir: config.dataDir,
    publicUrl: config.publicUrl,
    ...(config.pageSecret === undefined ? {} : { pageSecret: config.pageSecret }),
    // ranex/approval, escalation and the branch-protection notice (issue 6).
    mergeAuthority: mergeAuthority({
      dataDir: config.dataDir, keyPath: config.signingKeyPath, databaseUrl: config.databaseUrl,
      autoProtect: process.env.RANEX_AUTO_PROTECT === "1", appId: config.appId,
    }),
    clock,
    runner: new QueueJobRunner(queue, (err) => log.error(err, "a judge job failed outside its check run")),
    enqueue: (delivery, options) => queue.enqueue(delivery, coalescingOf(delivery.name, delivery.payload), options),
  };
}

function listen(routes: Handler[], config: ServerConfig, log: Logger): Promise<Server> {
  const server = createServer((req, res) => {
    void (async () => {
      try {
        for (const route of routes) if ((await route(req, res)) === true) return;
        res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      } catch (err) {
        log.error(err, "request failed");
        if (!res.headersSent) res.writeHead(500).end();
      }
    })();
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host ?? "0.0.0.0", () => resolve(server));
  });
}

/** Minutes between reconcile sweeps when RANEX_RECONCILE_MINUTES is not set. */
export const DEFAULT_RECONCILE_MINUTES = 5;

/** `RANEX_RECONCILE_MINUTES`: minutes between reconcile sweeps (0: none). */
export function reconcileFrom(env: Readonly<Record<string, string | undefined>>): number {
  const text = env.RANEX_RECONCILE_MINUTES;
  if (text === undefined || text === "") return DEFAULT_RECONCILE_MINUTES;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) throw new Error(`RANEX_RECONCILE_MINUTES must be a number of minutes (0: no reconcile sweep), got ${JSON.stringify(text)}`);
  return n;
}

/**
 * `RANEX_WEBHOOK_UNVERIFIED` (default 8) and `RANEX_WEBHOOK_UNVERIFIED_MB` (default 32): unverified
 * webhook bodies held at once, and their megabytes; the rest are answered 503 with retry-after.
 */
export function doorFrom(env: Readonly<Record<string, string | undefined>>): DoorLimits {
  const door: DoorLimits = {};
  const read = (name: string): number | undefined => {
    const text = env[name];
    if (text === undefined || text === "") return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1, got ${JSON.stringify(text)}`);
    return n;
  };
  const count = read("RANEX_WEBHOOK_UNVERIFIED");
  const mb = read("RANEX_WEBHOOK_UNVERIFIED_MB");
  if (count !== undefined) door.maxUnverified = count;
  if (mb !== undefined) door.unverifiedBytes = mb * 1024 * 1024;
  return door;
}

/** `RANEX_CHECK_WRITE_WINDOW_MINUTES`: how long one check run write is retried before the sweep takes over. */
export function writeWindowFrom(env: Readonly<Record<string, string | undefined>>): number {
  const text = env.RANEX_CHECK_WRITE_WINDOW_MINUTES;
  if (text === undefined || text === "") return DEFAULT_WRITE_WINDOW_MS;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`RANEX_CHECK_WRITE_WINDOW_MINUTES must be a positive number of minutes, got ${JSON.stringify(text)}`);
  return n * 60_000;
}

/** `RANEX_CONCURRENCY`: judgments at once per process; defaults to the cores. */
export function concurrencyFrom(env: Readonly<Record<string, string | undefined>>): number {
  const text = env.RANEX_CONCURRENCY;
  if (text === undefined || text === "") return availableParallelism();
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`RANEX_CONCURRENCY must be a whole number (0: no worker in this process), got ${JSON.stringify(text)}`);
  return n;
}

/** `RANEX_JOB_ATTEMPTS`, `RANEX_RETRY_DELAY_MS`, `RANEX_JOB_LEASE_S`: the queue's retry policy. */
export function retryFrom(env: Readonly<Record<string, string | undefined>>): Partial<RetryPolicy> {
  const retry: Partial<RetryPolicy> = {};
  const read = (name: string, min: number): number | undefined => {
    const text = env[name];
    if (text === undefined || text === "") return undefined;
    const n = Number(text);
    if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number of at least ${min}, got ${JSON.stringify(text)}`);
    return n;
  };
  const attempts = read("RANEX_JOB_ATTEMPTS", 1);
  const delay = read("RANEX_RETRY_DELAY_MS", 0);
  const lease = read("RANEX_JOB_LEASE_S", 1);
  if (attempts !== undefined) retry.attempts = Math.floor(attempts);
  if (delay !== undefined) retry.delayMs = delay;
  if (lease !== undefined) retry.leaseMs = lease * 1000;
  return retry;
}

/**
 * `WEBHOOK_PROXY_URL` (development): forwards the deliveries GitHub sends to a smee.io channel to this
 * server's webhook endpoint, with Probot's own proxy (it fetches smee-client on first use).
 */
export async function startWebhookProxy(url: string, port: number): Promise<void> {
  const entry = import.meta.resolve("probot");
  const { createWebhookProxy } = await import(new URL("./helpers/webhook-proxy.js", entry).href) as {
    createWebhookProxy: (options: { url: string; host: string; port: number; path: string; logger: Logger }) => Promise<unknown>;
  };
  const logger = pino({ name: "ranex-webhook-proxy" }) as unknown as Logger;
  await createWebhookProxy({ url, host: "127.0.0.1", port, path: "/api/github/webhooks", logger });
}
