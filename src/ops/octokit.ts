// The Octokit the server acts on GitHub with: Probot's (retry of 5xx and timeouts, throttling kept
// on), plus the check recorder, plus retries of secondary rate limits. Probot's default only logs
// those, which would turn a burst of check-run writes into failed judgments; GitHub asks clients to
// wait `retry-after` and try again, so we do, a few times, before the queue's own retry takes over.
import { ProbotOctokit, type Logger } from "probot";
import { recordChecks } from "../queue/check-recorder.js";

/** Tries of one request after a secondary rate limit, before the error reaches the handler. */
const SECONDARY_RETRIES = 4;

export function appOctokit(log: Logger): typeof ProbotOctokit {
  // A function default has the last word over Probot's own throttle options (a plain object would
  // be merged under them).
  return ProbotOctokit.plugin(recordChecks as never).defaults(((options: Record<string, any>) => ({ // eslint-disable-line @typescript-eslint/no-explicit-any
    ...options,
    throttle: {
      ...options.throttle,
      onSecondaryRateLimit: (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
        log.warn({ retryAfter, retryCount, request: `${request.method} ${request.url}` }, "secondary rate limit: waiting before trying again");
        return retryCount < SECONDARY_RETRIES;
      },
    },
  })) as never);
}
