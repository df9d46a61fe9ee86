// `ranex worker`: a judge worker without a webhook endpoint, for scale-out. It takes deliveries from
// the shared queue (DATABASE_URL: pg-boss on Postgres) and serves GET /healthz and GET /metrics on
// PORT. It needs the same environment as `npm start`: the app's id and key to act on GitHub.
import { parseArgs } from "node:util";
import { ConfigError, readServerConfig } from "../../github/config.js";
import { UsageError, type Command } from "../io.js";

export const run: Command = async (args, io) => {
  try {
    parseArgs({ args, options: {}, allowPositionals: false });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ranex worker   (configured by the environment, as npm start)`);
  }
  let config;
  try {
    config = readServerConfig(io.env, io.cwd);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  const { concurrencyFrom, retryFrom, startRanex, writeWindowFrom } = await import("../../ops/boot.js");
  const concurrency = concurrencyFrom(io.env);
  if (concurrency === 0) throw new UsageError("RANEX_CONCURRENCY=0 leaves a worker with nothing to do");
  const running = await startRanex(config, { webhooks: false, concurrency, retry: retryFrom(io.env), checkWriteWindowMs: writeWindowFrom(io.env) });
  io.stderr(`ranex worker: judging up to ${concurrency} at a time from the ${running.queue.kind} queue; health on port ${running.port}\n`);
  // Runs until a signal: then stops taking work and lets running judgments finish for a while.
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  await running.close();
  return 0;
};
