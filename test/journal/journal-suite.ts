import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, expect, it } from "vitest";
import { buildOverrideStatement, generateKey, publicKeyPem, writeKeyFiles, type DsseEnvelope, type SigningKey } from "../../src/attest/index.js";
import { appendSigned, entryHash, GENESIS_HASH, JournalError, type Journal, type JournalEntry } from "../../src/journal/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { signedPayload } from "./signed-payload.js";

const run = promisify(execFile);

/** What a backend gives the shared suite: fresh journals, and raw SQL that bypasses the journal (an attacker). */
export interface Backend {
  /** A fresh, empty journal, plus the openJournal options that reach the same one from another process. */
  fresh(): Promise<{ journal: Journal; target: { dataDir: string; databaseUrl?: string }; raw: RawSql }>;
}

export interface RawSql {
  /** Runs statements (`?` placeholders) with the append-only guards switched off, as a database owner could. */
  tamper(statements: Array<[string, unknown[]]>): Promise<void>;
  /** Runs one statement with the guards on; resolves to the error message, or null when it was allowed. */
  attempt(sql: string): Promise<string | null>;
}

export function journalSuite(backend: Backend): void {
  let key: SigningKey;
  let pem: string;
  let seedPath: string;

  beforeAll(async () => {
    key = await generateKey();
    pem = publicKeyPem(key.publicKey);
    ({ seedPath } = await writeKeyFiles(tempDir(), key));
  });

  async function filled(count: number) {
    const made = await backend.fresh();
    const entries: JournalEntry[] = [];
    for (let i = 1; i <= count; i++) {
      entries.push(await made.journal.append(i % 2 === 0 ? "approval" : "verdict", `sha256:${"c".repeat(63)}${i}`, (head) => signedPayload(key, head, `e${i}`)));
    }
    return { ...made, entries };
  }

  it("starts empty, and an empty journal verifies", async () => {
    const { journal } = await backend.fresh();
    expect(await journal.head()).toBeNull();
    expect(await journal.verify({ publicKeyPem: pem })).toEqual({ ok: true, count: 0, head: null });
    await expect(journal.verify({ publicKeyPem: "not a key" })).rejects.toThrow(/not a PEM public key/);
    await journal.close();
  });

  it("chains entries from the genesis hash, each hash over its canonical contents", async () => {
    const { journal, entries } = await filled(3);
    expect(entries.map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(entries[0]!.prevHash).toBe(GENESIS_HASH);
    expect(entries[1]!.prevHash).toBe(entries[0]!.hash);
    expect(entries[2]!.prevHash).toBe(entries[1]!.hash);
    for (const entry of entries) expect(entry.hash).toBe(entryHash(entry));
    expect(await journal.head()).toEqual({ sequence: 3, hash: entries[2]!.hash });
    expect(await journal.get(entries[1]!.id)).toEqual(entries[1]);
    expect(await journal.get("no-such-entry")).toBeNull();
    const after = [];
    for await (const entry of journal.entries({ after: 1, limit: 1 })) after.push(entry.sequence);
    expect(after).toEqual([2]);
    expect(await journal.verify({ publicKeyPem: pem })).toEqual({ ok: true, count: 3, head: { sequence: 3, hash: entries[2]!.hash } });
    await journal.close();
  });

  it("appends nothing when the payload cannot be built or has no JSON form, or the kind is unknown", async () => {
    const { journal } = await backend.fresh();
    await expect(journal.append("verdict", "sha256:x", async () => { throw new Error("signing failed"); })).rejects.toThrow("signing failed");
    await expect(journal.append("verdict", "sha256:x", async () => ({ n: Number.NaN }))).rejects.toThrow(JournalError);
    await expect(journal.append("merge" as never, "sha256:x", async () => ({}))).rejects.toThrow(/unknown journal entry kind/);
    await expect(journal.append("verdict", "", async () => ({}))).rejects.toThrow(/subject/);
    expect(await journal.head()).toBeNull();
    await journal.close();
  });

  it("refuses UPDATE and DELETE in the database itself", async () => {
    const { journal, raw } = await filled(1);
    expect(await raw.attempt("UPDATE ranex_journal SET payload = '{}'")).toMatch(/append-only/);
    expect(await raw.attempt("DELETE FROM ranex_journal")).toMatch(/append-only/);
    expect(await journal.verify({ publicKeyPem: pem })).toMatchObject({ ok: true, count: 1 });
    await journal.close();
  });

  it("names an entry whose payload was edited in the database", async () => {
    const { journal, raw, entries } = await filled(4);
    await raw.tamper([["UPDATE ranex_journal SET payload = ? WHERE sequence = ?", [JSON.stringify({ forged: true }), 2]]]);
    const result = await journal.verify();
    expect(result).toMatchObject({ ok: false, sequence: 2, id: entries[1]!.id });
    if (!result.ok) expect(result.reason).toMatch(/entry 2 .* does not match its hash/);
    await journal.close();
  });

  it("names the entry after one whose payload and hash were both rewritten", async () => {
    const { journal, raw, entries } = await filled(4);
    const forged = { ...entries[1]!, payload: { forged: true } };
    await raw.tamper([["UPDATE ranex_journal SET payload = ?, hash = ? WHERE sequence = ?", [JSON.stringify(forged.payload), entryHash(forged), 2]]]);
    expect(await journal.verify()).toMatchObject({ ok: false, sequence: 3, reason: expect.stringMatching(/does not extend entry 2/) });
    await journal.close();
  });

  it("catches a rewritten last entry by its signature", async () => {
    const { journal, raw, entries } = await filled(3);
    const other = await generateKey();
    const forged = { ...entries[2]!, payload: await signedPayload(other, { sequence: 2, hash: entries[1]!.hash }, "forged") };
    await raw.tamper([["UPDATE ranex_journal SET payload = ?, hash = ? WHERE sequence = ?", [JSON.stringify(forged.payload), entryHash(forged), 3]]]);
    expect(await journal.verify()).toMatchObject({ ok: true, count: 3 });
    expect(await journal.verify({ publicKeyPem: pem })).toMatchObject({ ok: false, sequence: 3, reason: expect.stringMatching(/not validly signed/) });
    await journal.close();
  });

  it("verifies override statements in the chain like verdicts, and names an override whose reason was edited (issue 23)", async () => {
    const { journal, raw, entries } = await filled(1);
    const { entry: override } = await appendSigned(journal, key, "override", `sha256:${"c".repeat(63)}1`, (head) => buildOverrideStatement({
      repository: "acme/widgets", pullRequest: 7, head: "a".repeat(40), base: "b".repeat(40), by: "maria", role: "maintain",
      reason: "The runner is not supported here yet; checked by hand.", time: "2026-02-03T04:05:06.000Z",
      overrides: { entry: entries[0]!.id, verdict: "FAIL", class: "incomplete", digest: `sha256:${"c".repeat(63)}1`, reasons: ["r"], failing: [] },
    }, head));
    await journal.append("verdict", `sha256:${"c".repeat(63)}3`, (head) => signedPayload(key, head, "e3"));
    expect(await journal.verify({ publicKeyPem: pem })).toMatchObject({ ok: true, count: 3 });
    // The reason rewritten and the entry's hash recomputed: only the signature can tell.
    const envelope = override.payload as DsseEnvelope;
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as { predicate: { reason: string } };
    statement.predicate.reason = "Approved by the team.";
    const forged = { ...override, payload: { ...envelope, payload: Buffer.from(JSON.stringify(statement)).toString("base64") } };
    await raw.tamper([["UPDATE ranex_journal SET payload = ?, hash = ? WHERE sequence = ?", [JSON.stringify(forged.payload), entryHash(forged), 2]]]);
    expect(await journal.verify({ publicKeyPem: pem })).toMatchObject({ ok: false, sequence: 2, reason: expect.stringMatching(/not validly signed/) });
    // Without the key, the chain itself names it: the next entry no longer extends it.
    expect(await journal.verify()).toMatchObject({ ok: false, sequence: 3 });
    await journal.close();
  });

  it("names a deleted middle entry", async () => {
    const { journal, raw } = await filled(5);
    await raw.tamper([["DELETE FROM ranex_journal WHERE sequence = ?", [3]]]);
    expect(await journal.verify()).toMatchObject({ ok: false, sequence: 3, reason: "entry 3 is missing: entry 4 follows entry 2" });
    await journal.close();
  });

  it("names two entries that were swapped", async () => {
    const { journal, raw } = await filled(4);
    await raw.tamper([
      ["UPDATE ranex_journal SET sequence = ? WHERE sequence = ?", [1_000_000, 2]],
      ["UPDATE ranex_journal SET sequence = ? WHERE sequence = ?", [2, 3]],
      ["UPDATE ranex_journal SET sequence = ? WHERE sequence = ?", [3, 1_000_000]],
    ]);
    expect(await journal.verify()).toMatchObject({ ok: false, sequence: 2, reason: expect.stringMatching(/entry 2 .* does not match its hash/) });
    await journal.close();
  });

  it("fails with another key, and when a signed entry claims to extend another head", async () => {
    const { journal, entries } = await filled(2);
    const other = publicKeyPem((await generateKey()).publicKey);
    expect(await journal.verify({ publicKeyPem: other })).toMatchObject({ ok: false, sequence: 1, reason: expect.stringMatching(/not validly signed/) });
    await journal.append("verdict", "sha256:stale", () => signedPayload(key, { sequence: 1, hash: entries[0]!.hash }, "stale"));
    expect(await journal.verify({ publicKeyPem: pem })).toMatchObject({ ok: false, sequence: 3, reason: expect.stringMatching(/signed as extending entry 1 .* but it follows entry 2/) });
    await journal.close();
  });

  it("detects truncation and rollback against an anchor", async () => {
    const { journal, raw, entries } = await filled(5);
    const anchor = { sequence: 4, hash: entries[3]!.hash };
    const published = entries[4]!.payload;
    expect(await journal.verify({ publicKeyPem: pem, anchor, anchorEnvelope: published })).toMatchObject({ ok: true, count: 5 });
    expect(await journal.verify({ anchor: { sequence: 4, hash: "f".repeat(64) } })).toMatchObject({ ok: false, sequence: 4, reason: expect.stringMatching(/anchor says/) });

    // Cutting off only the last entry keeps the chain intact; the envelope that was published still tells.
    await raw.tamper([["DELETE FROM ranex_journal WHERE sequence = ?", [5]]]);
    expect(await journal.verify({ publicKeyPem: pem })).toMatchObject({ ok: true, count: 4 });
    expect(await journal.verify({ anchorEnvelope: published })).toMatchObject({ ok: false, sequence: 5, reason: expect.stringMatching(/ends at entry 4: it was truncated or rolled back/) });
    await raw.tamper([["DELETE FROM ranex_journal WHERE sequence = ?", [4]]]);
    expect(await journal.verify({ anchor })).toMatchObject({ ok: false, sequence: 4, reason: expect.stringMatching(/ends at entry 3/) });

    // A rollback that rewrites entry 4 onward with a new, validly signed history.
    await journal.append("verdict", "sha256:rewrite", (head) => signedPayload(key, head, "rewritten"));
    expect(await journal.verify({ publicKeyPem: pem })).toMatchObject({ ok: true, count: 4 });
    expect(await journal.verify({ anchor })).toMatchObject({ ok: false, sequence: 4, reason: expect.stringMatching(/rewritten from here/) });
    expect(await journal.verify({ anchorEnvelope: { not: "an envelope" } })).toMatchObject({ ok: false, reason: expect.stringMatching(/not a DSSE envelope/) });
    await journal.close();
  });

  it("keeps one unbroken chain while several processes append at once", async () => {
    const { journal, target } = await backend.fresh();
    const workers = ["w1", "w2", "w3", "w4"];
    const perWorker = 6;
    await Promise.all(workers.map((label) =>
      run(process.execPath, ["--import", "tsx", "test/journal/append-worker.ts", JSON.stringify(target), seedPath, String(perWorker), label], { cwd: process.cwd() })));
    const result = await journal.verify({ publicKeyPem: pem });
    expect(result).toMatchObject({ ok: true, count: workers.length * perWorker });
    const subjects = new Map<string, number>();
    for await (const entry of journal.entries()) subjects.set(entry.subject, (subjects.get(entry.subject) ?? 0) + 1);
    expect(Object.fromEntries(subjects)).toEqual(Object.fromEntries(workers.map((w) => [`sha256:${w}`, perWorker])));
    await journal.close();
  });
}
