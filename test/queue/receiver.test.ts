import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookReceiver } from "../../src/queue/receiver.js";
import { SqliteQueue } from "../../src/queue/sqlite.js";
import { tempDir } from "../helpers/git-repo.js";

// The door on a real HTTP server and the real SQLite queue: signature before body (a declared length
// over the cap is refused unread; unverified bodies are held a few at a time, the rest get 503 with
// retry-after), then validation (a signed payload the handlers cannot use is 400 with its reason and
// is never queued: `null` was 503 before).

const SECRET = "door-secret";
const CAP = 64 * 1024;
const queue = new SqliteQueue(tempDir("ranex-door-"));
const results: { status: number; reason?: string }[] = [];
let server: Server;
let port: number;

beforeAll(async () => {
  const receive = webhookReceiver({ queue, secret: SECRET, maxBodyBytes: CAP, maxUnverified: 2, unverifiedBytes: 4 * CAP, onResult: (r) => results.push(r) });
  server = createServer((req, res) => void receive(req, res).then((handled) => { if (!handled) res.writeHead(404).end(); }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await queue.stop(1000);
});

interface Answer { status: number; text: string; headers: Record<string, string | string[] | undefined> }

function post(body: string, options: { signature?: string | null; event?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const signature = options.signature === undefined ? `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}` : options.signature;
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1", port, method: "POST", path: "/api/github/webhooks",
      headers: {
        "content-type": "application/json", "x-github-event": options.event ?? "pull_request", "x-github-delivery": randomUUID(),
        ...(signature === null ? {} : { "x-hub-signature-256": signature }), ...options.headers,
      },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => { text += c; }).on("end", () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const opened = readFileSync(join(import.meta.dirname, "..", "..", "fixtures", "webhooks", "pull_request.opened.json"), "utf8");

describe("validation at the door", () => {
  it("queues a real signed payload", async () => {
    const answer = await post(opened);
    expect(answer).toMatchObject({ status: 202, text: "queued\n" });
  });

  it("answers a signed null, array or malformed payload with 400 and its reason, and queues none of them", async () => {
    const before = await queue.depth();
    const badSha = JSON.parse(opened) as { pull_request: { head: { sha: string } } };
    badSha.pull_request.head.sha = "not-a-sha";
    const noPull = JSON.parse(opened) as Record<string, unknown>;
    delete noPull.pull_request;
    const fraction = { ...(JSON.parse(opened) as Record<string, unknown>), number: 2.5 };
    const answers = await Promise.all(["null", "[]", "\"text\"", JSON.stringify(badSha), JSON.stringify(noPull), JSON.stringify(fraction)].map((body) => post(body)));
    expect(answers.map((a) => [a.status, a.text.trim()])).toEqual([
      [400, "the payload is null, not an object"],
      [400, "the payload is an array, not an object"],
      [400, "the payload is a string, not an object"],
      [400, "pull_request payload: pull_request.head.sha: is not a 40-hex commit sha"],
      [400, expect.stringMatching(/^pull_request payload: pull_request: /)],
      [400, expect.stringMatching(/^pull_request payload: number: /)],
    ]);
    // The reasons reach the log line the server writes per request.
    expect(results.filter((r) => r.status === 400).map((r) => r.reason)).toContain("the payload is null, not an object");
    expect(await queue.depth()).toEqual(before);
  });
});

describe("signature before body", () => {
  it("refuses a declared length over the cap with 413 before reading it", async () => {
    const answer = await new Promise<Answer>((resolve, reject) => {
      // Declares more than the cap and sends only a few bytes: the answer comes without the rest.
      const req = request({
        host: "127.0.0.1", port, method: "POST", path: "/api/github/webhooks",
        headers: { "x-github-event": "pull_request", "x-github-delivery": randomUUID(), "x-hub-signature-256": "sha256=00", "content-length": String(CAP + 1) },
      }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => { text += c; }).on("end", () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      });
      req.on("error", reject);
      req.write("{}");
    });
    expect(answer.status).toBe(413);
    expect(answer.text).toContain(`at most ${CAP}`);
  });

  it("refuses a chunked body that grows past the cap with 413", async () => {
    const big = JSON.stringify({ pad: "x".repeat(CAP) });
    const answer = await post(big, { headers: { "transfer-encoding": "chunked" } }).catch((err: Error) => ({ status: -1, text: err.message, headers: {} }));
    // The server answers 413 and closes; the client may see the reset first while still writing.
    expect([413, -1]).toContain(answer.status);
    expect(results.some((r) => r.status === 413 && r.reason === `payload too large: more than ${CAP} bytes`)).toBe(true);
  });

  it("refuses a missing signature with 401 without reading the body, and a forged one after reading", async () => {
    expect((await post(opened, { signature: null })).status).toBe(401);
    expect((await post(opened, { signature: `sha256=${"0".repeat(64)}` })).status).toBe(401);
  });

  it("holds at most maxUnverified bodies at once: the next one gets 503 with retry-after", async () => {
    // Two slow senders hold both places (their bodies are declared and never finished).
    const held = [0, 1].map(() => {
      const req = request({
        host: "127.0.0.1", port, method: "POST", path: "/api/github/webhooks",
        headers: { "x-github-event": "pull_request", "x-github-delivery": randomUUID(), "x-hub-signature-256": "sha256=00", "content-length": "1000" },
      });
      req.on("error", () => undefined);
      req.write("{");
      return req;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await post(opened);
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBe("5");
    for (const req of held) req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // With the places free again, the same delivery is taken.
    expect((await post(opened)).status).toBe(202);
  });
});
