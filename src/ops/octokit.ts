// The Octokit the server acts on GitHub with: Probot's (retry of 5xx and timeouts, throttling kept
// on for reads and rate-limit answers), plus, from the outside in: the check recorder (an outbox of
// completions), the check run write retry (src/github/write-retry.ts: one window for every check run
// write, handed to the reconcile sweep after it), and writes spaced per installation in a store all
// workers share (src/github/write-throttle.ts). Secondary rate limits of other requests are retried
// after `retry-after` a few times: Probot's default only logs them.
import { ProbotOctokit, type Logger } from "probot";
import { recordChecks } from "../queue/check-recorder.js";
import { checkRunWriteRetry, isCheckRunWrite, type WriteRetryOptions } from "../github/write-retry.js";
import { spaceWrites, UNSPACED_GROUP, type WriteSlots } from "../github/write-throttle.js";

/** Tries of one request after a secondary rate limit, before the error reaches the handler. */
const SECONDARY_RETRIES = 4;

export interface OctokitOptions {
  retry: WriteRetryOptions;
  slots: WriteSlots;
  /** Spacing of one installation's writes; GitHub's guidance is a second. */
  spacingMs?: number;
}

export function appOctokit(log: Logger, options: OctokitOptions): typeof ProbotOctokit {
  // Registered in this order, the last is outermost: the recorder sees one request, the retry tries
  // it again, and every try waits for its installation's slot.
  const plugins = [
    spaceWrites({ slots: options.slots, sleep: (ms) => options.retry.sleep(ms), ...(options.spacingMs === undefined ? {} : { spacingMs: options.spacingMs }) }),
    checkRunWriteRetry({ ...options.retry, log }),
    recordChecks,
  ];
  // A function default has the last word over Probot's own throttle options (a plain object would
  // be merged under them).
  return ProbotOctokit.plugin(...(plugins as never[])).defaults(((defaults: Record<string, any>) => ({ // eslint-disable-line @typescript-eslint/no-explicit-any
    ...defaults,
    throttle: {
      ...defaults.throttle,
      write: UNSPACED_GROUP,
      onSecondaryRateLimit: (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
        // Check run writes wait under their own window (write-retry), not here.
        if (isCheckRunWrite(request.method, request.url)) return false;
        log.warn({ retryAfter, retryCount, request: `${request.method} ${request.url}` }, "secondary rate limit: waiting before trying again");
        return retryCount < SECONDARY_RETRIES;
      },
      onRateLimit: (retryAfter: number, request: { method: string; url: string }) => {
        if (isCheckRunWrite(request.method, request.url)) return false;
        log.warn({ retryAfter, request: `${request.method} ${request.url}` }, "rate limit reached: waiting for its reset");
        return true;
      },
    },
  })) as never);
}
