import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/git-repo.js";

// The App's first run (issue 15): `npm start` with no app configured serves Probot's setup page; the
// manifest flow's code is exchanged at a loopback stand-in for GitHub's
// POST /app-manifests/{code}/conversions (GHE_HOST points there: never a real network address), the
// app's id, key and webhook secret land in .env, and the gate then starts with them on the same port.

const ROOT = join(import.meta.dirname, "..", "..");
const children: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(() => {
  // tsx runs the server as a child of its own: kill the whole group, or the server outlives the test.
  for (const child of children.splice(0)) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }
  for (const server of servers.splice(0)) server.close();
});

function standIn(pem: string): Promise<{ port: number; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    calls.push(`${req.method} ${req.url}`);
    if (req.method === "POST" && req.url === "/api/v3/app-manifests/abc123/conversions") {
      const port = (server.address() as AddressInfo).port;
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({
        id: 4242, slug: "ranex-gate", client_id: "Iv1.test", client_secret: "client-secret", webhook_secret: "hook-secret-from-github", pem,
        html_url: `http://127.0.0.1:${port}/apps/ranex-gate`,
      }));
      return;
    }
    res.writeHead(404).end();
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ port: (server.address() as AddressInfo).port, calls })));
}

function startServer(cwd: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = "";
  const child = spawn(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/server.ts")], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, detached: true });
  children.push(child);
  child.stdout?.on("data", (d: Buffer) => { output += d.toString(); });
  child.stderr?.on("data", (d: Buffer) => { output += d.toString(); });
  return { child, output: () => output };
}

async function until<T>(what: string, probe: () => Promise<T | null>, output: () => string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen; server said:\n${output()}`);
}

describe("npm start without an app", () => {
  it("serves the setup page, registers the app from app.yml at the stand-in, writes .env and starts the gate with it", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs1", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
    const github = await standIn(privateKey);
    const cwd = tempDir("ranex-setup-");
    copyFileSync(join(ROOT, "app.yml"), join(cwd, "app.yml"));
    copyFileSync(join(ROOT, "package.json"), join(cwd, "package.json"));
    const server = startServer(cwd, {
      HOME: cwd, PORT: "0", RANEX_DATA_DIR: join(cwd, "data"), RANEX_CONCURRENCY: "0",
      GHE_HOST: `127.0.0.1:${github.port}`, GHE_PROTOCOL: "http", LOG_LEVEL: "info",
    });
    const port = await until("the setup page", async () => Number(/open http:\/\/localhost:(\d+)\/probot/.exec(server.output())?.[1] ?? NaN) || null, server.output);

    const page = await fetch(`http://127.0.0.1:${port}/probot`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // The form posts app.yml's manifest to the GitHub host, with this server's webhook URL.
    expect(html).toContain(`http://127.0.0.1:${github.port}/settings/apps/new`);
    expect(html).toContain(`http://127.0.0.1:${port}/api/github/webhooks`);
    expect(html).toContain("checks");

    const back = await fetch(`http://127.0.0.1:${port}/probot/setup?code=abc123`, { redirect: "manual" });
    expect(back.status).toBe(302);
    expect(back.headers.get("location")).toBe(`http://127.0.0.1:${github.port}/apps/ranex-gate/installations/new`);
    expect(github.calls).toEqual(["POST /api/v3/app-manifests/abc123/conversions"]);
    const env = readFileSync(join(cwd, ".env"), "utf8");
    expect(env).toMatch(/^APP_ID=4242$/m);
    expect(env).toMatch(/^WEBHOOK_SECRET=hook-secret-from-github$/m);
    expect(env).toContain("BEGIN RSA PRIVATE KEY");

    // The gate now runs on the same port, with what setup wrote: its health check answers.
    const health = await until("the gate's health check", async () => {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      return res.status === 200 ? res : null;
    }, server.output);
    expect(health.status).toBe(200);
    expect(server.output()).toContain("ranex gate listening");
  }, 60_000);

  it("starts from .env alone on the next run", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs1", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
    const cwd = tempDir("ranex-setup-");
    writeFileSync(join(cwd, ".env"), `APP_ID=77\nWEBHOOK_SECRET=s\nPRIVATE_KEY="${privateKey.replace(/\n/g, "\\n")}"\n`);
    const server = startServer(cwd, { HOME: cwd, PORT: "0", RANEX_DATA_DIR: join(cwd, "data"), RANEX_CONCURRENCY: "0" });
    await until("the gate", async () => (server.output().includes("ranex gate listening") ? true : null), server.output);
  }, 60_000);
});
