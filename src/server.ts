// `npm start`: the GitHub App's server. Reads `.env` and the environment and starts the webhook
// endpoint with an embedded judge worker (RANEX_CONCURRENCY=0: webhooks only, for replicas in front
// of `ranex worker`). No app configured yet (no APP_ID and key) outside production: Probot's setup
// page registers one from app.yml, writes `.env`, and the gate starts with it, on the same port.
// Missing configuration otherwise: one line naming the variable, exit 1. SIGTERM: stop taking work,
// let running judgments finish for a while; whatever is cut off is taken again by the next start.
import { pino } from "pino";
import { ConfigError, readServerConfig, type ServerConfig } from "./github/config.js";
import { appConfigured, loadDotEnv, startSetup } from "./ops/setup.js";

const log = pino({ name: "ranex", level: process.env.LOG_LEVEL ?? "info" });

async function main(): Promise<void> {
  loadDotEnv(process.cwd(), process.env);
  if (!appConfigured(process.env) && process.env.NODE_ENV !== "production") {
    const port = Number(process.env.PORT ?? "3000");
    const setup = await startSetup({
      port: Number.isInteger(port) ? port : 3000, host: process.env.HOST, cwd: process.cwd(),
      log: { info: (m) => log.info(m), error: (err, m) => log.error(err, m) },
      // The gate takes over the port the setup page was served on.
      onConfigured: () => void setup.close().then(() => {
        process.env.PORT = String(setup.port);
        return start();
      }),
    });
    return;
  }
  await start();
}

async function start(): Promise<void> {
  let config: ServerConfig;
  try {
    config = readServerConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`ranex: ${err.message}\n`);
    process.exit(1);
  }
  // Loaded only once the configuration is known to be complete, so a missing variable is reported
  // before anything heavy loads.
  const { concurrencyFrom, doorFrom, reconcileFrom, retryFrom, startRanex, startWebhookProxy, writeWindowFrom } = await import("./ops/boot.js");
  let options;
  try {
    options = { webhooks: true, concurrency: concurrencyFrom(process.env), retry: retryFrom(process.env), reconcileMinutes: reconcileFrom(process.env), door: doorFrom(process.env), checkWriteWindowMs: writeWindowFrom(process.env) };
  } catch (err) {
    process.stderr.write(`ranex: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const running = await startRanex(config, options);
  if (process.env.WEBHOOK_PROXY_URL) await startWebhookProxy(process.env.WEBHOOK_PROXY_URL, running.port);
  const stop = (): void => {
    void running.close().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

await main();
