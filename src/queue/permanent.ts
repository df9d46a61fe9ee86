// Errors that no retry can cure (issue 21): the queue drops such a delivery with a log line naming
// why, instead of trying it three times. Two kinds: a payload that lacks what its event needs (a pull
// request event without `pull_request`, a head that is not a sha, a number that is not a number:
// checked before the handlers run, so nothing is posted to GitHub from it), and an answer from
// GitHub that will be the same next time (400, 404, 410, 422).
import { z } from "zod";

/** An error the handlers raise when retrying cannot help. */
export class Permanent extends Error {
  override readonly name = "Permanent";
}

const sha = z.string().regex(/^[0-9a-f]{40}$/, "is not a 40-hex commit sha");
const number = z.number().int().positive();
const repository = z.object({ name: z.string().min(1), owner: z.object({ login: z.string().min(1) }) });
const installation = z.object({ id: number });
const pullRequest = z.object({ number, head: z.object({ sha }), base: z.object({ sha, ref: z.string() }) });

/** What each event's handlers read from the payload; events not listed need only an object. */
const SHAPES: Record<string, z.ZodType> = {
  pull_request: z.object({ action: z.string(), number, pull_request: pullRequest, repository, installation }),
  pull_request_review: z.object({ action: z.string(), pull_request: pullRequest, repository, installation }),
  issue_comment: z.object({ action: z.string(), issue: z.object({ number }), comment: z.object({ body: z.string().nullable().optional() }), repository, installation }),
  check_run: z.object({ action: z.string(), check_run: z.object({ name: z.string(), head_sha: sha }), repository, installation }),
  check_suite: z.object({ action: z.string(), check_suite: z.object({ head_sha: sha }), repository, installation }),
  merge_group: z.object({ action: z.string(), merge_group: z.object({ head_sha: sha }), repository, installation }),
  push: z.object({ ref: z.string(), repository, installation }),
};

/** Why a delivery's payload cannot be handled, or null when it can. */
export function payloadProblem(event: string, payload: unknown): string | null {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return `the ${event} payload is ${payload === null ? "null" : Array.isArray(payload) ? "an array" : typeof payload}, not an object`;
  const shape = SHAPES[event];
  if (shape === undefined) return null;
  const parsed = shape.safeParse(payload);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  return `the ${event} payload's ${issue?.path.join(".") || "body"} ${issue?.message ?? "is invalid"}`;
}

interface HttpError { status?: unknown; message?: unknown; request?: { method?: unknown; url?: unknown } }

/** Why `err` cannot succeed on a retry, or null when it might. */
export function permanentReason(err: unknown): string | null {
  const inner = err instanceof AggregateError && err.errors.length > 0 ? err.errors[0] as unknown : err;
  if (inner instanceof Permanent) return inner.message;
  const e = (inner ?? {}) as HttpError;
  if (typeof e.status === "number" && [400, 404, 410, 422].includes(e.status)) {
    const where = e.request === undefined ? "" : ` to ${String(e.request.method)} ${String(e.request.url)}`;
    return `GitHub answered ${e.status}${where}, which will not change on a retry: ${String(e.message)}`;
  }
  return null;
}
