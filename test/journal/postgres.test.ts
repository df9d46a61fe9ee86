import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openJournal } from "../../src/journal/index.js";
import { journalSuite, type Backend } from "./journal-suite.js";
import { postgresAvailable, skippedName, TEST_DATABASE_URL, urlInSchema } from "../helpers/postgres.js";

// Runs whenever a server is reachable; says so by name when not, and fails loudly when CI requires it.
const url = TEST_DATABASE_URL;
const reachable = await postgresAvailable();
const inSchema = urlInSchema;

const schemas: string[] = [];
async function admin<T>(work: (client: pg.Client) => Promise<T>, schema?: string): Promise<T> {
  const client = new pg.Client({ connectionString: schema === undefined ? url : inSchema(schema) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

// `?` placeholders become `$n`, so the shared suite's SQL runs here too.
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

const postgres: Backend = {
  async fresh() {
    const schema = `ranex_test_${randomBytes(6).toString("hex")}`;
    schemas.push(schema);
    await admin((c) => c.query(`CREATE SCHEMA ${schema}`));
    const databaseUrl = inSchema(schema);
    const journal = await openJournal({ dataDir: "/nonexistent-unused", databaseUrl });
    return {
      journal, target: { dataDir: "/nonexistent-unused", databaseUrl },
      raw: {
        tamper: (statements) => admin(async (c) => {
          // What the database owner can do: replica mode skips the append-only triggers.
          await c.query("SET session_replication_role = replica");
          for (const [sql, params] of statements) await c.query(numbered(sql), params);
        }, schema),
        attempt: (sql) => admin(async (c) => {
          try {
            await c.query(sql);
            return null;
          } catch (err) {
            return (err as Error).message;
          }
        }, schema),
      },
    };
  },
};

afterAll(async () => {
  if (schemas.length > 0) await admin((c) => c.query(schemas.map((s) => `DROP SCHEMA IF EXISTS ${s} CASCADE;`).join("\n")));
});

if (reachable) {
  describe("postgres journal", () => {
    journalSuite(postgres);
    it("refuses TRUNCATE too", async () => {
      const { journal, raw } = await postgres.fresh();
      await journal.append("verdict", "sha256:t", async () => ({ kept: true }));
      expect(await raw.attempt("TRUNCATE ranex_journal")).toMatch(/append-only: TRUNCATE is refused/);
      expect(await journal.verify()).toMatchObject({ ok: true, count: 1 });
      await journal.close();
    });
  });
} else {
  describe.skip(skippedName("postgres journal"), () => journalSuite(postgres));
}
