// The webhook endpoint of every replica: verify GitHub's signature, store the delivery durably, answer.
// Nothing is judged here, so the answer is quick and a replica holds no state worth losing. A missing
// or wrong signature is 401 and nothing is stored.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { mergeGroupCoalescing } from "../github/merge-queue/events.js";
import { COALESCED_ACTIONS } from "../github/pull-request/events.js";
import { CLOSED_HEAD } from "../github/pull-request/jobs.js";
import type { Coalescing, DeliveryQueue } from "./types.js";

/** GitHub caps webhook payloads at 25 MB. */
const MAX_BODY_BYTES = 25 * 1024 * 1024;

export interface ReceiverOptions {
  queue: DeliveryQueue;
  secret: string;
  path?: string;
  /** Called once per request with its outcome, for metrics and logs. */
  onResult?: (result: { event: string; status: number; seconds: number; delivery?: string }) => void;
}

export function webhookReceiver(options: ReceiverOptions): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const path = options.path ?? "/api/github/webhooks";
  return async (req, res) => {
    if ((req.url ?? "").split("?")[0] !== path) return false;
    const started = process.hrtime.bigint();
    const event = header(req, "x-github-event") ?? "unknown";
    const delivery = header(req, "x-github-delivery");
    const answer = (status: number, text: string): true => {
      res.writeHead(status, { "content-type": "text/plain" }).end(`${text}\n`);
      options.onResult?.({ event, status, seconds: Number(process.hrtime.bigint() - started) / 1e9, delivery });
      return true;
    };
    if (req.method !== "POST") return answer(405, "webhooks are POSTed");
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (err) {
      return answer(413, (err as Error).message);
    }
    const signature = header(req, "x-hub-signature-256");
    if (signature === undefined || !signatureMatches(options.secret, body, signature)) return answer(401, "signature missing or wrong");
    if (delivery === undefined || event === "unknown") return answer(400, "X-GitHub-Delivery and X-GitHub-Event are required");
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString("utf8"));
    } catch {
      return answer(400, "the body is not JSON");
    }
    try {
      const added = await options.queue.enqueue({ id: delivery, name: event, payload }, coalescingOf(event, payload));
      return added ? answer(202, "queued") : answer(200, "already received");
    } catch (err) {
      // GitHub shows a failed delivery to the app's owner, who can redeliver it once the store is back.
      return answer(503, `could not queue the delivery: ${(err as Error).message}`);
    }
  };
}

export function signatureMatches(secret: string, body: Buffer, signature: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(body).digest("hex")}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A pull request event that names a head makes that head the newest for its pull request; `closed`
 * makes the pull request's newest "head" CLOSED_HEAD, so no process judges it any more.
 */
export function coalescingOf(event: string, payload: unknown): Coalescing | null {
  // A merge group's commit is its "head"; `destroyed` replaces it, so its judgment anywhere stops.
  if (event === "merge_group") return mergeGroupCoalescing(payload);
  const p = payload as { action?: string; number?: number; pull_request?: { head?: { sha?: string } }; repository?: { name?: string; owner?: { login?: string } } };
  if (event !== "pull_request" || !(COALESCED_ACTIONS as readonly string[]).includes(p.action ?? "")) return null;
  const head = p.action === "closed" ? CLOSED_HEAD : p.pull_request?.head?.sha;
  const owner = p.repository?.owner?.login;
  const name = p.repository?.name;
  if (typeof head !== "string" || typeof owner !== "string" || typeof name !== "string" || typeof p.number !== "number") return null;
  return { key: `${owner}/${name}#${p.number}`, head };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error("payload too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
