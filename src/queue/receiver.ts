// The webhook endpoint of every replica: verify GitHub's signature, validate, store the delivery
// durably, answer. Nothing is judged here, so the answer is quick and a replica holds no state worth
// losing. A missing or wrong signature is 401 and nothing is stored.
//
// Signature before body (issue 21): a body costs memory before its signature can be checked, so the
// door spends as little as it can on one it has not verified. No signature header, or a declared
// length over the cap: refused before a byte is read. At most `maxUnverified` bodies (and
// `unverifiedBytes` bytes of them) are held at once; the rest get 503 with `retry-after`. The HMAC is
// computed while the body streams in, into one buffer of the declared size, never past the cap.
import { createHmac, timingSafeEqual, type Hmac } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { mergeGroupCoalescing } from "../github/merge-queue/events.js";
import { COALESCED_ACTIONS } from "../github/pull-request/events.js";
import { CLOSED_HEAD } from "../github/pull-request/jobs.js";
import { payloadProblem } from "./door.js";
import type { Coalescing, DeliveryQueue } from "./types.js";

/** GitHub caps webhook payloads at 25 MB. */
export const MAX_BODY_BYTES = 25 * 1024 * 1024;
/** Unverified bodies read at once by default (`RANEX_WEBHOOK_UNVERIFIED`). */
export const DEFAULT_MAX_UNVERIFIED = 8;
/** Bytes of unverified bodies held at once by default (`RANEX_WEBHOOK_UNVERIFIED_MB`). */
export const DEFAULT_UNVERIFIED_BYTES = 32 * 1024 * 1024;
/** Seconds a sender is asked to wait when the door is full. */
const RETRY_AFTER_S = 5;

export interface ReceiverOptions {
  queue: DeliveryQueue;
  secret: string;
  path?: string;
  /** The largest body accepted (default: GitHub's 25 MB). */
  maxBodyBytes?: number;
  /** Bodies read before their signature is known, at most, at once. */
  maxUnverified?: number;
  /** Bytes of such bodies held at once, at most. */
  unverifiedBytes?: number;
  /** Called once per request with its outcome, for metrics and logs; `reason` for refusals. */
  onResult?: (result: { event: string; status: number; seconds: number; delivery?: string; reason?: string }) => void;
}

export function webhookReceiver(options: ReceiverOptions): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const path = options.path ?? "/api/github/webhooks";
  const cap = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const door = new Budget(options.maxUnverified ?? DEFAULT_MAX_UNVERIFIED, options.unverifiedBytes ?? DEFAULT_UNVERIFIED_BYTES);
  return async (req, res) => {
    if ((req.url ?? "").split("?")[0] !== path) return false;
    const started = process.hrtime.bigint();
    const event = header(req, "x-github-event") ?? "unknown";
    const delivery = header(req, "x-github-delivery");
    const answer = (status: number, text: string, unread = false, headers: Record<string, string> = {}): true => {
      // A body left unread is not read afterwards: the connection closes with the answer.
      if (unread) headers.connection = "close";
      res.writeHead(status, { "content-type": "text/plain", ...headers }).end(`${text}\n`);
      if (unread) res.once("finish", () => req.destroy());
      const reason = status >= 400 ? text : undefined;
      options.onResult?.({ event, status, seconds: Number(process.hrtime.bigint() - started) / 1e9, delivery, ...(reason === undefined ? {} : { reason }) });
      return true;
    };
    if (req.method !== "POST") return answer(405, "webhooks are POSTed", true);
    const signature = header(req, "x-hub-signature-256");
    if (signature === undefined) return answer(401, "signature missing or wrong", true);
    const declared = declaredLength(req);
    if (declared === "bad") return answer(400, "Content-Length is not a number", true);
    if (declared !== undefined && declared > cap) return answer(413, `payload too large: ${declared} bytes declared, at most ${cap}`, true);
    const ticket = door.enter(declared ?? 0);
    if (ticket === null) return answer(503, "too many unverified deliveries at once: retry later", true, { "retry-after": String(RETRY_AFTER_S) });
    let body: Buffer;
    let mac: string;
    try {
      const read = await readSigned(req, options.secret, declared, cap, ticket);
      if (read === "too large") return answer(413, `payload too large: more than ${cap} bytes`, true);
      if (read === "full") return answer(503, "too many unverified bytes at once: retry later", true, { "retry-after": String(RETRY_AFTER_S) });
      ({ body, mac } = read);
    } catch (err) {
      return answer(400, `the body could not be read: ${(err as Error).message}`, true);
    } finally {
      ticket.leave();
    }
    if (!macMatches(mac, signature)) return answer(401, "signature missing or wrong");
    if (delivery === undefined || event === "unknown") return answer(400, "X-GitHub-Delivery and X-GitHub-Event are required");
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString("utf8"));
    } catch {
      return answer(400, "the body is not JSON");
    }
    // A payload that cannot be handled is refused here, with its reason: retrying could not help.
    const problem = payloadProblem(event, payload);
    if (problem !== null) return answer(400, problem);
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
  return macMatches(createHmac("sha256", secret).update(body).digest("hex"), signature);
}

function macMatches(hex: string, signature: string): boolean {
  const expected = Buffer.from(`sha256=${hex}`);
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

function declaredLength(req: IncomingMessage): number | undefined | "bad" {
  const text = header(req, "content-length");
  if (text === undefined) return undefined;
  return /^\d+$/.test(text) ? Number(text) : "bad";
}

/** Unverified bodies held at once: a count and their bytes. */
class Budget {
  private count = 0;
  private bytes = 0;

  constructor(private readonly maxCount: number, private readonly maxBytes: number) {}

  enter(bytes: number): Ticket | null {
    if (this.count >= this.maxCount || this.bytes + bytes > this.maxBytes) return null;
    this.count += 1;
    this.bytes += bytes;
    let held = bytes;
    let open = true;
    return {
      grow: (to) => {
        if (this.bytes - held + to > this.maxBytes) return false;
        this.bytes += to - held;
        held = to;
        return true;
      },
      leave: () => {
        if (!open) return;
        open = false;
        this.count -= 1;
        this.bytes -= held;
      },
    };
  }
}

interface Ticket {
  /** Reserves `to` bytes in all for this body; false when the budget has no room. */
  grow(to: number): boolean;
  leave(): void;
}

/**
 * Reads the body into one buffer (of the declared size, or grown by doubling up to the cap) while
 * computing its HMAC; "too large", or "full" when the budget has no room left for it.
 */
async function readSigned(req: IncomingMessage, secret: string, declared: number | undefined, cap: number, ticket: Ticket): Promise<{ body: Buffer; mac: string } | "too large" | "full"> {
  const hmac: Hmac = createHmac("sha256", secret);
  let buffer = Buffer.allocUnsafe(declared ?? Math.min(cap, 64 * 1024));
  if (declared === undefined && !ticket.grow(buffer.length)) return "full";
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (size + chunk.length > cap) return "too large";
    if (size + chunk.length > buffer.length) {
      // Only without a declared length (Node's parser holds a declared one to its word).
      const next = Math.min(cap, Math.max(buffer.length * 2, size + chunk.length));
      if (!ticket.grow(next)) return "full";
      const grown = Buffer.allocUnsafe(next);
      buffer.copy(grown, 0, 0, size);
      buffer = grown;
    }
    hmac.update(chunk);
    chunk.copy(buffer, size);
    size += chunk.length;
  }
  return { body: buffer.subarray(0, size), mac: hmac.digest("hex") };
}
