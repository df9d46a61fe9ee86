// The App's first run, the Probot way: with no app configured, `npm start` serves Probot's setup page.
// It posts the manifest (app.yml, with this server's webhook URL) to github.com or a GitHub
// Enterprise Server (GHE_HOST), GitHub sends the browser back with a code, and the code is exchanged
// (POST /app-manifests/{code}/conversions) for the app's id, private key and webhook secret, which
// are written to `.env`. Probot's own ManifestCreation and pages do the work; this module only
// decides the webhook URL and tells the caller when the app is configured, so the server can start.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parse as parseQuery } from "node:querystring";
import { parseEnv } from "node:util";
import { parse as parseYaml } from "yaml";

/** The parts of Probot's ManifestCreation used here (probot/lib/manifest-creation.js; not exported by the package). */
interface ManifestCreation {
  createAppFromCode(code: string, options: { request?: Record<string, unknown> }): Promise<string>;
  readonly createAppUrl: string;
}
type ManifestCreationClass = new (options: { updateEnv: (env: Record<string, string>) => Record<string, string> }) => ManifestCreation;
type View = (options: Record<string, string | undefined>) => string;

/** Probot keeps these out of its package exports; they sit next to its entry point. */
async function probotInternals(): Promise<{ ManifestCreation: ManifestCreationClass; setupView: View; updateEnv: (env: Record<string, string>) => Record<string, string> }> {
  const entry = import.meta.resolve("probot");
  const [manifest, view, env] = await Promise.all([
    import(new URL("./manifest-creation.js", entry).href) as Promise<{ ManifestCreation: ManifestCreationClass }>,
    import(new URL("./views/setup.js", entry).href) as Promise<{ setupView: View }>,
    import(new URL("./helpers/update-env.js", entry).href) as Promise<{ updateEnv: (env: Record<string, string>) => Record<string, string> }>,
  ]);
  return { ManifestCreation: manifest.ManifestCreation, setupView: view.setupView, updateEnv: env.updateEnv };
}

/** Whether the environment names an app; without one (and not in production) the setup page is served. */
export function appConfigured(env: Readonly<Record<string, string | undefined>>): boolean {
  return [env.APP_ID, env.PRIVATE_KEY ?? env.PRIVATE_KEY_PATH].every((v) => v !== undefined && v !== "");
}

/** Reads `.env` in `cwd` into the environment (values already set win), as Probot does at start. */
export function loadDotEnv(cwd: string, env: Record<string, string | undefined>): void {
  let text: string;
  try {
    text = readFileSync(join(cwd, ".env"), "utf8");
  } catch {
    return;
  }
  for (const [key, value] of Object.entries(parseEnv(text))) if (env[key] === undefined || env[key] === "") env[key] = value;
}

/** app.yml with the webhook URL this server will answer on (the smee channel in development). */
export function manifestFor(cwd: string, serverUrl: string, env: Readonly<Record<string, string | undefined>>): string {
  const manifest = parseYaml(readFileSync(join(cwd, "app.yml"), "utf8")) as Record<string, unknown>;
  const publicUrl = env.RANEX_PUBLIC_URL !== undefined && env.RANEX_PUBLIC_URL !== "" ? env.RANEX_PUBLIC_URL.replace(/\/+$/, "") : serverUrl;
  const hook = env.WEBHOOK_PROXY_URL !== undefined && env.WEBHOOK_PROXY_URL !== "" ? env.WEBHOOK_PROXY_URL : `${publicUrl}/api/github/webhooks`;
  return JSON.stringify({
    ...manifest,
    hook_attributes: { ...(manifest.hook_attributes as object | undefined), url: hook },
    redirect_url: `${serverUrl}/probot/setup`,
    setup_url: `${publicUrl}/`,
  });
}

export interface SetupOptions {
  port: number;
  host?: string;
  cwd: string;
  log: { info: (message: string) => void; error: (err: unknown, message: string) => void };
  /** Called once `.env` holds the app: the caller closes this server and starts the real one. */
  onConfigured: () => void;
}

export interface SetupServer {
  port: number;
  close: () => Promise<void>;
}

export async function startSetup(options: SetupOptions): Promise<SetupServer> {
  const { ManifestCreation, setupView, updateEnv } = await probotInternals();
  let configured = false;
  const creation = new ManifestCreation({
    // Probot writes `.env` in the working directory, which is where `npm start` runs.
    updateEnv: (values) => updateEnv(values),
  });
  const pkg = JSON.parse(readFileSync(join(options.cwd, "package.json"), "utf8")) as { name?: string; version?: string; description?: string };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const [path = "/", query = ""] = (req.url ?? "/").split("?");
      try {
        if (req.method !== "GET") return void res.writeHead(405).end();
        if (path === "/") return void res.writeHead(302, { location: "/probot" }).end();
        if (path === "/healthz") return void res.writeHead(503, { "content-type": "text/plain" }).end("setup: no GitHub App configured yet; open /probot\n");
        if (path === "/probot") {
          const page = setupView({ ...pkg, createAppUrl: creation.createAppUrl, manifest: manifestFor(options.cwd, baseUrlOf(req), process.env) });
          return void res.writeHead(200, { "content-type": "text/html" }).end(page);
        }
        if (path === "/probot/setup") {
          const code = parseQuery(query).code;
          if (typeof code !== "string" || !/^[A-Za-z0-9_-]{1,200}$/.test(code)) return void res.writeHead(400, { "content-type": "text/plain" }).end("code missing or invalid\n");
          const htmlUrl = await creation.createAppFromCode(code, {});
          res.writeHead(302, { location: `${htmlUrl}/installations/new` }).end();
          if (!configured) {
            configured = true;
            options.log.info("the GitHub App is registered and .env written; starting the gate");
            options.onConfigured();
          }
          return;
        }
        res.writeHead(404, { "content-type": "text/plain" }).end("not found: open /probot to register the GitHub App\n");
      } catch (err) {
        options.log.error(err, "setup failed");
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(`registering the app failed: ${(err as Error).message}\n`);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "0.0.0.0", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  options.log.info(`no GitHub App configured: open http://localhost:${port}/probot to register one from app.yml (it writes .env)`);
  return {
    port,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

function baseUrlOf(req: IncomingMessage): string {
  const forwarded = req.headers["x-forwarded-proto"];
  const protocol = (typeof forwarded === "string" ? forwarded.split(",")[0] : undefined) ?? "http";
  const host = req.headers["x-forwarded-host"] ?? req.headers.host ?? "localhost";
  return `${protocol}://${String(host)}`;
}
