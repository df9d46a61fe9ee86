// Validation at the door (issue 21): a signed delivery whose payload cannot be handled (not an object,
// missing what its event needs, a head that is not a sha, a pull request number that is not a whole
// number) is refused with 400 and a reason, never queued: a retry could not make it succeed, and a
// malformed sha must never reach GitHub's API as if it were one. The shapes name only what the
// handlers read, and let everything else through (GitHub adds fields; real payloads from
// @octokit/webhooks-examples and fixtures/webhooks must all pass, test/queue/door.test.ts).
import { z } from "zod";

const sha = z.string().regex(/^[0-9a-f]{40}$/, "is not a 40-hex commit sha");
const number = z.number().int().positive();
const login = z.object({ login: z.string() });
const repository = z.object({ name: z.string().min(1), owner: login });
// Optional on repository events (examples sent outside an installation lack it); when present, an id.
const installation = z.object({ id: number }).optional();
const onRepository = { repository, installation };

const pullRequest = z.object({
  number,
  head: z.object({ sha, ref: z.string() }),
  base: z.object({ sha, ref: z.string() }),
});

/** Per event: what its handlers need. Events the app does not handle only need to be an object. */
const SHAPES: Readonly<Record<string, z.ZodType>> = {
  pull_request: z.object({ action: z.string(), number, pull_request: pullRequest, ...onRepository }),
  pull_request_review: z.object({
    action: z.string(), review: z.object({ id: number }),
    pull_request: z.object({ number, head: z.object({ sha }) }), ...onRepository,
  }),
  push: z.object({ ref: z.string(), before: sha, after: sha, ...onRepository }),
  issue_comment: z.object({
    action: z.string(), issue: z.object({ number }),
    comment: z.object({ id: number, body: z.string().nullable(), user: login }), ...onRepository,
  }),
  check_run: z.object({ action: z.string(), check_run: z.object({ id: number, name: z.string(), head_sha: sha }), ...onRepository }),
  check_suite: z.object({ action: z.string(), check_suite: z.object({ id: number, head_sha: sha }), ...onRepository }),
  merge_group: z.object({
    action: z.string(),
    merge_group: z.object({ head_sha: sha, head_ref: z.string(), base_sha: sha, base_ref: z.string() }), ...onRepository,
  }),
  installation: z.object({ action: z.string(), installation: z.object({ id: number }) }),
  installation_repositories: z.object({ action: z.string(), installation: z.object({ id: number }) }),
};

const anyObject = z.record(z.string(), z.unknown());

/** Null when the payload has what its event needs; otherwise the reason, naming the field. */
export function payloadProblem(event: string, payload: unknown): string | null {
  // Arrays and null are not objects to a webhook: checked first, so the reason says so plainly.
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    return `the payload is ${payload === null ? "null" : Array.isArray(payload) ? "an array" : `a ${typeof payload}`}, not an object`;
  }
  const shape = SHAPES[event] ?? anyObject;
  const parsed = shape.safeParse(payload);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  if (issue === undefined) return `${event} payload is invalid`;
  const where = issue.path.length === 0 ? "the payload" : issue.path.join(".");
  return `${event} payload: ${where}: ${issue.message}`;
}
