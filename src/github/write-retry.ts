// Writes to check runs outlast a GitHub outage (issue 21). A check run the app started must end, and
// the verdict it carries was measured at a cost, so a refused write is tried again with backoff,
// honouring `retry-after` and the rate limit's reset, for as long as the judgment is relevant (the
// window, `RANEX_CHECK_WRITE_WINDOW_MINUTES`, default 30). After the window the write fails with
// WritesRefused, the check run is marked refused in the queue's store, and the reconcile sweep
// completes it once GitHub answers again (src/github/pull-request/sweep.ts). A write that cannot
// succeed by waiting (400, 401, 404, 410, 422, a 403 that is not a rate limit) fails at once.
// Probot's own retry (three tries in a few seconds) and throttling retries are switched off for
// these writes (src/ops/octokit.ts): one policy, one window.

export const DEFAULT_WRITE_WINDOW_MS = 30 * 60_000;
const BASE_DELAY_MS = 1000;
const MAX_DELAY_MS = 60_000;
/** GitHub's advice when a secondary rate limit gives no `retry-after`: wait at least a minute. */
const SECONDARY_FALLBACK_MS = 60_000;

export interface WriteRetryOptions {
  /** How long one write is tried, from its first attempt. */
  windowMs: number;
  /** Milliseconds since the epoch; injectable so tests do not wait real minutes. */
  now: () => number;
  /** Waits `ms`; resolves early when `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  log?: { warn: (obj: object, msg: string) => void };
}

/** The write was refused for the whole window: the reconcile sweep takes the check run over. */
export class WritesRefused extends Error {
  override readonly name = "WritesRefused";
  constructor(
    /** The last HTTP status, or null when GitHub could not be reached at all. */
    readonly status: number | null,
    /** When the first attempt was made (ms since the epoch). */
    readonly since: number,
    readonly attempts: number,
    readonly lastError: unknown,
    until: number,
  ) {
    super(refusalReason(status, until - since));
  }
}

/** "GitHub refused check run writes for 40 minutes (HTTP 500)": what a person reads on the check. */
export function refusalReason(status: number | null, durationMs: number): string {
  const minutes = Math.max(1, Math.round(durationMs / 60_000));
  return `GitHub refused check run writes for ${minutes} minute${minutes === 1 ? "" : "s"} (${status === null ? "no answer" : `HTTP ${status}`})`;
}

/** POST /repos/o/r/check-runs and PATCH /repos/o/r/check-runs/{id}: the writes this policy covers. */
export function isCheckRunWrite(method: string, url: string): boolean {
  const path = url.replace(/^https?:\/\/[^/]+/, "").replace(/^\/api\/v3(?=\/)/, "").split("?")[0] ?? "";
  if (method === "POST") return /^\/repos\/[^/]+\/[^/]+\/check-runs$/.test(path);
  if (method === "PATCH") return /^\/repos\/[^/]+\/[^/]+\/check-runs\/[^/]+$/.test(path);
  return false;
}

interface HttpError {
  status?: unknown;
  message?: unknown;
  response?: { headers?: Record<string, string | number | undefined> };
}

/** The wait before the next try of a refused write, or null when waiting cannot help. */
export function retryDelay(err: unknown, attempt: number, now: number): number | null {
  const e = (err ?? {}) as HttpError;
  const status = typeof e.status === "number" ? e.status : null;
  const headers = e.response?.headers ?? {};
  const backoff = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  const retryAfter = Number(headers["retry-after"]);
  const afterMs = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : null;
  // No HTTP answer at all (a reset connection; Octokit reports most as 500): GitHub may be back soon.
  if (status === null || status === 0) return backoff;
  if (status >= 500) return Math.max(backoff, afterMs ?? 0);
  if (status === 403 || status === 429) {
    if (afterMs !== null) return afterMs;
    const reset = Number(headers["x-ratelimit-reset"]);
    if (String(headers["x-ratelimit-remaining"]) === "0" && Number.isFinite(reset)) return Math.max(0, reset * 1000 - now) + 1000;
    if (/secondary rate/i.test(String(e.message ?? ""))) return SECONDARY_FALLBACK_MS;
    // A 429 is always a limit; a bare 403 is a refusal (permissions) that waiting will not change.
    return status === 429 ? backoff : null;
  }
  return null;
}

/**
 * Sends `write` until it succeeds, waiting as `retryDelay` says, within the window. `stop` ends the
 * retries early (the write became moot, e.g. a status update once the verdict is ready): the last
 * error is thrown as it was.
 */
export async function retryWrite<T>(write: () => Promise<T>, options: WriteRetryOptions, what: string, stop?: AbortSignal): Promise<T> {
  const since = options.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (err) {
      const now = options.now();
      const delay = retryDelay(err, attempt, now);
      if (delay === null || stop?.aborted === true) throw err;
      const status = typeof (err as HttpError).status === "number" ? (err as HttpError).status as number : null;
      if (now + delay - since > options.windowMs) throw new WritesRefused(status, since, attempt, err, now);
      options.log?.warn({ write: what, status, attempt, waitMs: delay }, "GitHub refused a check run write: trying again");
      await options.sleep(delay, stop);
      if (aborted(stop)) throw err;
    }
  }
}

function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

interface RequestOptions { method: string; url: string; request?: Record<string, unknown>; [key: string]: unknown }
type Request = (options: RequestOptions) => Promise<unknown>;
interface Hookable { hook: { wrap: (name: "request", wrapper: (request: Request, options: RequestOptions) => Promise<unknown>) => void } }

/**
 * An Octokit plugin retrying check run writes under `options`. A request may carry
 * `request: { stopRetrying: AbortSignal }` to end its retries early, or `request: { writeWindowMs }`
 * for a window of its own (the sweep's writes: 0, one try, the next sweep tries again).
 */
export function checkRunWriteRetry(options: WriteRetryOptions): (octokit: Hookable) => void {
  return (octokit) => {
    octokit.hook.wrap("request", (request, opts) => {
      if (!isCheckRunWrite(opts.method, opts.url)) return request(opts);
      const stop = opts.request?.stopRetrying as AbortSignal | undefined;
      // Probot's retry plugin would try 5xx three more times per attempt; this policy owns them. The
      // options object is changed in place: Octokit's hook chain hands every inner layer the same
      // object, whatever an outer layer passes on.
      const windowMs = opts.request?.writeWindowMs;
      opts.request = { ...opts.request, retries: 0 };
      const policy = typeof windowMs === "number" ? { ...options, windowMs } : options;
      return retryWrite(() => request(opts), policy, `${opts.method} ${opts.url}`, stop);
    });
  };
}

/** Real time: the server's default. */
export const realTime = {
  now: (): number => Date.now(),
  sleep: (ms: number, signal?: AbortSignal): Promise<void> => new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  }),
};
