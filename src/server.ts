// `npm start`: the GitHub App's server. Reads the environment and starts the webhook endpoint with an
// embedded judge worker (RANEX_CONCURRENCY=0: webhooks only, for replicas in front of `ranex worker`).
// Missing configuration: one line naming the variable, exit 1. SIGTERM: stop taking work, let running
// judgments finish for a while; whatever is cut off is taken again by the next start (or worker).
import { ConfigError, readServerConfig, type ServerConfig } from "./github/config.js";

async function main(): Promise<void> {
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
  const { concurrencyFrom, reconcileFrom, retryFrom, startRanex } = await import("./ops/boot.js");
  let options;
  try {
    options = { webhooks: true, concurrency: concurrencyFrom(process.env), retry: retryFrom(process.env), reconcileMinutes: reconcileFrom(process.env) };
  } catch (err) {
    process.stderr.write(`ranex: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const running = await startRanex(config, options);
  const stop = (): void => {
    void running.close().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

await main();
