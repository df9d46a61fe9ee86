// Watches the app's own GitHub requests while a delivery is handled, so the worker knows afterwards
// which check runs that delivery created and whether each was completed. A completing PATCH body is
// stored before it is sent (an outbox): if GitHub never acknowledged it, the next try re-sends that
// exact body instead of judging again, so a journalled verdict is never lost to a failed post.
import { AsyncLocalStorage } from "node:async_hooks";
import { WritesRefused } from "../github/write-retry.js";
import { placeholderId, type DeliveryQueue } from "./types.js";

/** The delivery being handled in this async context. */
export interface HandlingContext {
  delivery: string;
  queue: DeliveryQueue;
  /** Judge jobs the handlers submitted: the delivery is done only when they are. */
  jobs: Promise<void>[];
}

export const handling = new AsyncLocalStorage<HandlingContext>();

const CREATE = /^\/repos\/([^/]+)\/([^/]+)\/check-runs$/;
const UPDATE = /^\/repos\/[^/]+\/[^/]+\/check-runs\/(\d+)$/;

interface RequestOptions { method: string; url: string; baseUrl?: string; [key: string]: unknown }
type Request = (options: RequestOptions) => Promise<{ data: unknown }>;
interface Hookable { hook: { wrap: (name: "request", wrapper: (request: Request, options: RequestOptions) => Promise<unknown>) => void } }

const BODY_KEYS = ["name", "head_sha", "details_url", "external_id", "status", "started_at", "conclusion", "completed_at", "output", "actions"] as const;

/** An Octokit plugin (ProbotOctokit.plugin(recordChecks)). Outside a handled delivery it does nothing. */
export function recordChecks(octokit: Hookable): void {
  octokit.hook.wrap("request", async (request, options) => {
    const context = handling.getStore();
    if (context === undefined) return request(options);
    const path = pathOf(options);
    if (options.method === "POST" && CREATE.test(path)) {
      const [, owner = "", repo = ""] = (CREATE.exec(path) ?? []).map((part) => decodeURIComponent(part));
      // Stored before it is sent: a process killed between GitHub creating the run and the id being
      // recorded below leaves a run only this intent leads the next try to.
      if (typeof options.head_sha === "string" && typeof options.name === "string") {
        await context.queue.recordCreating(context.delivery, { owner, repo, head: options.head_sha, name: options.name, at: Date.now() });
      }
      const completed = options.status === "completed" || options.conclusion !== undefined;
      let response;
      try {
        response = await request(options);
      } catch (err) {
        // Created already completed, and refused for the whole window: held for the sweep to create.
        if (completed && err instanceof WritesRefused) await holdRefusedCreation(context, owner, repo, options, err);
        throw err;
      }
      const id = (response.data as { id: number }).id;
      await context.queue.recordCheck(context.delivery, owner, repo, id);
      // A check created already completed (ranex/approval's verdicts are posted in one request) is
      // done: without this the worker saw it as left open and tried the whole delivery again.
      if (completed) await context.queue.markPosted(id);
      return response;
    }
    const update = options.method === "PATCH" ? UPDATE.exec(path) : null;
    if (update !== null && (options.status === "completed" || options.conclusion !== undefined)) {
      const id = Number(update[1]);
      const body: Record<string, unknown> = {};
      for (const key of BODY_KEYS) if (options[key] !== undefined) body[key] = options[key];
      const send = await context.queue.recordCompletion(id, body, typeof options.external_id === "string" && options.external_id !== "");
      // An error completion after a journalled verdict failed to post: the verdict is sent again
      // instead, because the journal already says what this head's verdict is.
      // In place: Octokit's hook chain hands inner layers the same options object, not the one passed on.
      for (const key of BODY_KEYS) delete options[key];
      Object.assign(options, send);
      let response;
      try {
        response = await request(options);
      } catch (err) {
        // Refused for the whole retry window: the reconcile sweep posts the held body later.
        if (err instanceof WritesRefused) await context.queue.markRefused(id, err.status, err.since);
        throw err;
      }
      await context.queue.markPosted(id);
      return response;
    }
    return request(options);
  });
}

/**
 * A check run created already completed (ranex/approval's decision, a known verdict) has no id until
 * GitHub accepts it. Refused for the whole window, its body is kept under a placeholder id, marked
 * refused: the reconcile sweep creates it once GitHub answers, so the decision is posted, not lost.
 */
async function holdRefusedCreation(context: HandlingContext, owner: string, repo: string, options: RequestOptions, refused: WritesRefused): Promise<void> {
  const id = placeholderId(Date.now(), Math.random());
  const body: Record<string, unknown> = {};
  for (const key of BODY_KEYS) if (options[key] !== undefined) body[key] = options[key];
  await context.queue.recordCheck(context.delivery, owner, repo, id);
  await context.queue.recordCompletion(id, body, typeof options.external_id === "string" && options.external_id !== "");
  await context.queue.markRefused(id, refused.status, refused.since);
}

/** The request's path with its parameters filled in (`/repos/{owner}/...` → `/repos/o/...`). */
function pathOf(options: RequestOptions): string {
  const url = options.url.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(options[name] ?? "")));
  return url.replace(/^https?:\/\/[^/]+/, "").replace(/^\/api\/v3(?=\/)/, "").split("?")[0] ?? "";
}
