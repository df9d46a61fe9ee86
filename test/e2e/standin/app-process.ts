import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { GitHubStandIn } from "./github.js";

// The real server process (the entry `npm start` runs, or `ranex worker`), started against the
// stand-in, and webhooks delivered to it as GitHub delivers them.

export const ROOT = join(import.meta.dirname, "..", "..", "..");
export const APP_ID = 4242;
export const SECRET = "e2e-webhook-secret";
export const PRIVATE_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();

export interface AppProcess {
  url: string;
  child: ChildProcess;
  output: string[];
  /** Resolves with the exit code or signal. */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface AppOptions {
  dataDir: string;
  role?: "server" | "worker";
  env?: Record<string, string>;
}

export async function startApp(github: GitHubStandIn, options: AppOptions): Promise<AppProcess> {
  const entry = options.role === "worker" ? [join(ROOT, "src/cli/main.ts"), "worker"] : [join(ROOT, "src/server.ts")];
  // node itself (not the tsx launcher, which forks): a SIGKILL then ends the server, as in production.
  const child = spawn(process.execPath, ["--import", "tsx", ...entry], {
    cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], detached: true,
    env: {
      PATH: process.env.PATH, HOME: options.dataDir, APP_ID: String(APP_ID), PRIVATE_KEY, WEBHOOK_SECRET: SECRET,
      GHE_HOST: github.url.replace(/^http:\/\//, ""), GHE_PROTOCOL: "http", RANEX_DATA_DIR: options.dataDir,
      PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", RANEX_RETRY_DELAY_MS: "1000", ...options.env,
    },
  });
  const output: string[] = [];
  let resolvePort: (port: number) => void = () => {};
  const port = new Promise<number>((resolve) => { resolvePort = resolve; });
  const collect = (chunk: Buffer): void => {
    for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) {
      output.push(line);
      const listening = /"port":(\d+).*"msg":"ranex gate listening"/.exec(line);
      if (listening !== null) resolvePort(Number(listening[1]));
    }
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "?")));
  const listening = await Promise.race([port, exited.then((how) => { throw new Error(`the app exited (${how}) before listening:\n${output.join("\n")}`); }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the app did not listen within 60 s:\n${output.join("\n")}`)), 60_000))]);
  return {
    url: `http://127.0.0.1:${listening}`, child, output, exited,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), signal);
      return exited;
    },
  };
}

export interface Delivered { status: number; ms: number; text: string }

/** POSTs a webhook as GitHub does; `signature` overrides the computed one ("" leaves it out). */
export async function deliver(url: string, event: string, payload: unknown, options: { id?: string; signature?: string } = {}): Promise<Delivered> {
  const body = JSON.stringify(payload);
  const signature = options.signature ?? `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
  const started = performance.now();
  const res = await fetch(`${url}/api/github/webhooks`, {
    method: "POST", body,
    headers: {
      "content-type": "application/json", "x-github-event": event, "x-github-delivery": options.id ?? randomUUID(),
      ...(signature === "" ? {} : { "x-hub-signature-256": signature }),
    },
  });
  const text = await res.text();
  return { status: res.status, ms: performance.now() - started, text };
}

const FIXTURES = join(ROOT, "fixtures", "webhooks");

export interface PullEvent { number: number; head: string; base: string; headRef: string; body?: string; cloneUrl: string; action?: string; baseRef?: string }

/** A real pull_request payload, pointed at the stand-in's repository. */
export type PullPayload = Record<string, unknown> & { pull_request: { head: { sha: string } } };

export function pullRequestPayload(event: PullEvent): PullPayload {
  const p = JSON.parse(readFileSync(join(FIXTURES, "pull_request.opened.json"), "utf8")) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  p.action = event.action ?? "opened";
  p.number = event.number;
  p.pull_request.number = event.number;
  p.pull_request.head.sha = event.head;
  p.pull_request.head.ref = event.headRef;
  p.pull_request.base.sha = event.base;
  p.pull_request.base.ref = event.baseRef ?? "main";
  p.pull_request.body = event.body ?? "";
  p.pull_request.draft = false;
  p.repository.clone_url = event.cloneUrl;
  p.installation = { id: 1, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==" };
  return p as PullPayload;
}

/** Polls until `done` holds, or fails naming what it waited for. */
export async function waitFor<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 90_000, logs?: string[]): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${logs ? `\n--- app output ---\n${logs.slice(-40).join("\n")}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The server's /healthz once its queue is empty, or the last answer when the time is up. A verdict
 * can be posted while its delivery still works (ranex/approval follows the verdict).
 */
export async function healthWhenIdle(url: string, timeoutMs = 25_000): Promise<{ ok: boolean; queue: { queued: number; active: number } }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = await (await fetch(`${url}/healthz`)).json() as { ok: boolean; queue: { queued: number; active: number } };
    if ((health.queue.queued === 0 && health.queue.active === 0) || Date.now() > deadline) return health;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
