// A separate process appending to a shared journal, for the concurrency tests:
//   node --import tsx test/journal/append-worker.ts '<{"dataDir":...,"databaseUrl":...}>' <seed path> <count> <label>
import { setTimeout as sleep } from "node:timers/promises";
import { loadSigningKey } from "../../src/attest/index.js";
import { openJournal } from "../../src/journal/index.js";
import { signedPayload } from "./signed-payload.js";

const [target, seedPath, count, label] = process.argv.slice(2);
const key = await loadSigningKey(seedPath!);
const journal = await openJournal(JSON.parse(target!) as { dataDir: string; databaseUrl?: string });
try {
  for (let i = 0; i < Number(count); i++) {
    await journal.append("verdict", `sha256:${label}`, async (head) => {
      // An await between reading the head and inserting: the window where writers can race.
      await sleep(Math.floor(Math.random() * 4));
      return signedPayload(key, head, `${label}-${i}`);
    });
  }
} finally {
  await journal.close();
}
