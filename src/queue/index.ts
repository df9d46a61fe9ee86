// One queue, chosen by configuration: SQLite in the data dir, or pg-boss when DATABASE_URL is set.
import { DEFAULT_RETRY, type DeliveryQueue, type RetryPolicy } from "./types.js";

export * from "./types.js";
export { QueueJobRunner } from "./runner.js";
export { recordChecks, handling } from "./check-recorder.js";
export { deliveryHandler } from "./worker.js";
export { webhookReceiver, coalescingOf, signatureMatches } from "./receiver.js";

export interface QueueConfig {
  dataDir: string;
  databaseUrl?: string;
  retry?: Partial<RetryPolicy>;
}

export async function openQueue(config: QueueConfig): Promise<DeliveryQueue> {
  const retry = { ...DEFAULT_RETRY, ...config.retry };
  if (config.databaseUrl !== undefined) {
    const { PostgresQueue } = await import("./postgres.js");
    return PostgresQueue.open(config.databaseUrl, retry);
  }
  const { SqliteQueue } = await import("./sqlite.js");
  return new SqliteQueue(config.dataDir, retry);
}
