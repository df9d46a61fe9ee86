import { randomBytes } from "node:crypto";
import pg from "pg";

// The Postgres server the tests use: RANEX_TEST_DATABASE_URL. Suites that need it run whenever it
// is reachable, say by name that they were skipped when it is not, and fail loudly when CI requires
// it (RANEX_REQUIRE_POSTGRES=1, set by .ci/run).

export const TEST_DATABASE_URL = process.env.RANEX_TEST_DATABASE_URL ?? "";

async function ping(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Whether the suite can run here; throws when CI requires Postgres and it is not there. */
export async function postgresAvailable(): Promise<boolean> {
  const reachable = TEST_DATABASE_URL !== "" && (await ping(TEST_DATABASE_URL));
  if (!reachable && process.env.RANEX_REQUIRE_POSTGRES === "1") {
    throw new Error(`RANEX_REQUIRE_POSTGRES=1 but Postgres is not reachable at RANEX_TEST_DATABASE_URL (${TEST_DATABASE_URL || "unset"})`);
  }
  return reachable;
}

/** The name a skipped suite is reported under, so a skip is never silent. */
export function skippedName(name: string): string {
  return `${name} (skipped: RANEX_TEST_DATABASE_URL not reachable)`;
}

/** A fresh schema name; tables of parallel test files never meet. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** The test URL with search_path set to one schema. */
export function urlInSchema(schema: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return url.toString();
}

/** Runs SQL as the test URL's user (creating and dropping schemas). */
export async function adminSql(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
