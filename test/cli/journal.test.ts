import { randomBytes } from "node:crypto";
import { mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { buildStatement, dataDirKey, generateKey, keyIdOf, publicKeyPem, signStatement, writeKeyFiles, type SigningKey } from "../../src/attest/index.js";
import { openJournal, type JournalEntry } from "../../src/journal/index.js";
import { makeVerdictFixture } from "../attest/verdict-fixture.js";
import { tempDir } from "../helpers/git-repo.js";
import { ranex } from "./cli-capture.js";
import { postgresAvailable, skippedName, TEST_DATABASE_URL } from "../helpers/postgres.js";

/** A data dir holding its own key and a journal of `count` signed verdicts, the way the judge leaves it. */
async function judgedDataDir(count: number, databaseUrl?: string, signWith?: SigningKey) {
  const dataDir = join(tempDir(), "data");
  const key = signWith ?? await dataDirKey(dataDir);
  const fixture = makeVerdictFixture();
  const journal = await openJournal(databaseUrl === undefined ? { dataDir } : { dataDir, databaseUrl });
  const entries: JournalEntry[] = [];
  for (let i = 0; i < count; i++) {
    entries.push(await journal.append("verdict", fixture.verdict.subject.digest, async (head) => signStatement(buildStatement(fixture.verdict, {
      repository: "acme/widgets", ref: null, gateVersion: "0.1.0", time: `2026-01-0${i + 1}T00:00:00.000Z`, journal: head, evidence: fixture.evidence,
    }), key)));
  }
  await journal.close();
  return { dataDir, entries };
}

function tamper(dataDir: string, sql: string, ...params: unknown[]): void {
  const db = new Database(join(dataDir, "journal.db"));
  db.exec("DROP TRIGGER IF EXISTS ranex_journal_no_update; DROP TRIGGER IF EXISTS ranex_journal_no_delete;");
  db.prepare(sql).run(...params);
  db.close();
}

describe("ranex journal", () => {
  it("verifies a good journal against the data dir's key, and fails against another key", async () => {
    const { dataDir, entries } = await judgedDataDir(3);
    const good = await ranex(["journal", "verify", "--data-dir", dataDir]);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain(`journal ok: 3 entries, head is entry 3 (${entries[2]!.hash})`);
    expect(good.stdout).toContain("signatures checked against the data dir's key");

    const otherPem = join(dataDir, "..", "other.pem");
    writeFileSync(otherPem, publicKeyPem((await generateKey()).publicKey));
    const other = await ranex(["journal", "verify", "--public-key", otherPem], { env: { RANEX_DATA_DIR: dataDir } });
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/^journal BROKEN at entry 1 .* is not validly signed/);
  });

  it("finds the key by default and names it: the data dir's seed alone, or the app's RANEX_SIGNING_KEY_PATH", async () => {
    const { dataDir } = await judgedDataDir(2);
    const key = await dataDirKey(dataDir);
    unlinkSync(join(dataDir, "signing.pub.pem"));
    const seedOnly = await ranex(["journal", "verify", "--data-dir", dataDir]);
    expect(seedOnly.code).toBe(0);
    expect(seedOnly.stdout).toContain(`signatures checked against the data dir's key ${join(dataDir, "signing.key")} (key id ${keyIdOf(key.publicKey)})`);

    // The app signs with a key kept outside the data dir: verify uses it as the server does.
    const appKey = await generateKey();
    const keys = join(tempDir(), "keys");
    mkdirSync(keys);
    const { seedPath } = await writeKeyFiles(keys, appKey);
    const signed = await judgedDataDir(2, undefined, appKey);
    const withApp = await ranex(["journal", "verify", "--data-dir", signed.dataDir], { env: { RANEX_SIGNING_KEY_PATH: seedPath } });
    expect(withApp.code).toBe(0);
    expect(withApp.stdout).toContain(`signatures checked against the app's key (RANEX_SIGNING_KEY_PATH) ${join(keys, "signing.pub.pem")} (key id ${keyIdOf(appKey.publicKey)})`);
    const without = await ranex(["journal", "verify", "--data-dir", signed.dataDir]);
    expect(without.stdout).toContain(`signatures NOT checked: no key in the data dir ${signed.dataDir}`);
  });

  it("names an edited entry", async () => {
    const { dataDir, entries } = await judgedDataDir(3);
    tamper(dataDir, "UPDATE ranex_journal SET payload = ? WHERE sequence = 2", JSON.stringify({ verdict: "CANDIDATE" }));
    const result = await ranex(["journal", "verify", "--data-dir", dataDir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`journal BROKEN at entry 2 (${entries[1]!.id}): entry 2`);
  });

  it("detects a cut-off tail with --anchor <envelope.json> or --anchor <sequence:hash>", async () => {
    const { dataDir, entries } = await judgedDataDir(3);
    const anchorFile = join(dataDir, "..", "posted.json");
    writeFileSync(anchorFile, JSON.stringify(entries[2]!.payload));
    const args = ["journal", "verify", "--data-dir", dataDir];
    expect((await ranex([...args, "--anchor", anchorFile])).code).toBe(0);
    expect((await ranex([...args, "--anchor", `3:${entries[2]!.hash}`])).code).toBe(0);
    tamper(dataDir, "DELETE FROM ranex_journal WHERE sequence = 3");
    expect((await ranex(args)).code).toBe(0);
    const cut = await ranex([...args, "--anchor", anchorFile]);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toMatch(/BROKEN at entry 3: .*ends at entry 2: it was truncated or rolled back/);
    expect((await ranex([...args, "--anchor", `3:${entries[2]!.hash}`])).code).toBe(1);
  });

  it("shows one entry by id or by sequence", async () => {
    const { dataDir, entries } = await judgedDataDir(2);
    const byId = await ranex(["journal", "show", entries[1]!.id, "--data-dir", dataDir]);
    expect(byId.code).toBe(0);
    expect(JSON.parse(byId.stdout)).toEqual(entries[1]);
    const bySequence = await ranex(["journal", "show", "1", "--data-dir", dataDir]);
    expect(JSON.parse(bySequence.stdout)).toEqual(entries[0]);
    expect((await ranex(["journal", "show", "nope", "--data-dir", dataDir])).code).toBe(1);
    expect((await ranex(["journal", "show", "7", "--data-dir", dataDir])).code).toBe(1);
  });

  it("exits 2 when there is no journal or the command is wrong, and never creates one", async () => {
    const empty = join(tempDir(), "none");
    const missing = await ranex(["journal", "verify", "--data-dir", empty]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no journal at ${join(empty, "journal.db")}`);
    expect((await ranex(["journal", "verify", "--data-dir", empty])).code).toBe(2);
    expect((await ranex(["journal"])).code).toBe(2);
    expect((await ranex(["journal", "prune"])).code).toBe(2);
    expect((await ranex(["journal", "show"])).code).toBe(2);
  });
});

const url = TEST_DATABASE_URL;
const reachable = await postgresAvailable();
(reachable ? describe : describe.skip)(reachable ? "ranex journal on DATABASE_URL" : skippedName("ranex journal on DATABASE_URL"), () => {
  it("verifies the Postgres journal named by DATABASE_URL", async () => {
    const schema = `ranex_test_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    try {
      const databaseUrl = new URL(url ?? "");
      databaseUrl.searchParams.set("options", `-c search_path=${schema}`);
      const { dataDir, entries } = await judgedDataDir(2, databaseUrl.toString());
      const result = await ranex(["journal", "verify", "--data-dir", dataDir], { env: { DATABASE_URL: databaseUrl.toString() } });
      expect(result.stdout).toContain(`journal ok: 2 entries, head is entry 2 (${entries[1]!.hash})`);
      expect(result.code).toBe(0);
      // Signatures are checked by default here too, with the data dir's key, and the key is named.
      const key = await dataDirKey(dataDir);
      expect(result.stdout).toContain(`signatures checked against the data dir's key ${join(dataDir, "signing.pub.pem")} (key id ${keyIdOf(key.publicKey)})`);
      // Entries signed by another key than the data dir's are caught without --public-key.
      const forged = await judgedDataDir(1, databaseUrl.toString(), await generateKey());
      await dataDirKey(forged.dataDir);
      const broken = await ranex(["journal", "verify", "--data-dir", forged.dataDir], { env: { DATABASE_URL: databaseUrl.toString() } });
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(/^journal BROKEN at entry 1 .* is not validly signed/);
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});
