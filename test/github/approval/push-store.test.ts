import { afterAll, describe, expect, it } from "vitest";
import { openPushStore, type PushStore } from "../../../src/github/approval/push-store.js";
import { tempDir } from "../../helpers/git-repo.js";
import { adminSql, freshSchema, postgresAvailable, skippedName, urlInSchema } from "../../helpers/postgres.js";

// Who pushed to a pull request is kept for its life, once per push, where the journal is: every
// replica must read the same pushers, or a pusher could approve on the replica that never saw them.

const reachable = await postgresAvailable();
const schema = freshSchema("ranex_pushes_test");
if (reachable) await adminSql(`CREATE SCHEMA ${schema}`);
afterAll(async () => {
  if (reachable) await adminSql(`DROP SCHEMA ${schema} CASCADE`);
});

async function behaves(open: () => PushStore): Promise<void> {
  const store = open();
  const push = { repository: "o/r", pull: 2, login: "alice", before: "a".repeat(40), after: "b".repeat(40) };
  await store.record(push);
  await store.record(push);
  await store.record({ ...push, login: "bob", before: null, after: "c".repeat(40) });
  await store.record({ ...push, pull: 3, login: "carol" });
  await store.close();
  // A second process (another replica) reads what the first recorded.
  const again = open();
  expect(await again.pushesOf("o/r", 2)).toEqual([
    { login: "alice", before: "a".repeat(40), after: "b".repeat(40), via: "synchronize" },
    { login: "bob", before: null, after: "c".repeat(40), via: "synchronize" },
  ]);
  expect(await again.pushesOf("o/r", 4)).toEqual([]);
  await again.close();
}

describe("the push store", () => {
  it("on SQLite in the data dir: records once per push, per pull request, in order", async () => {
    const dataDir = tempDir();
    await behaves(() => openPushStore({ dataDir }));
  });

  it.skipIf(!reachable)(reachable ? "on Postgres: the same, shared by every replica" : skippedName("on Postgres"), async () => {
    await behaves(() => openPushStore({ dataDir: tempDir(), databaseUrl: urlInSchema(schema) }));
  });
});
