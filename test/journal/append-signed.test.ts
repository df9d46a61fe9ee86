import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dataDirKey, publicKeyPem, verifyEnvelope } from "../../src/attest/index.js";
import { appendSignedVerdict, openJournal } from "../../src/journal/index.js";
import { makeVerdictFixture } from "../attest/verdict-fixture.js";
import { tempDir } from "../helpers/git-repo.js";

describe("appendSignedVerdict", () => {
  it("journals each verdict as an envelope that names the head it extends, and the journal verifies", async () => {
    const dataDir = join(tempDir(), "data");
    const key = await dataDirKey(dataDir);
    const journal = await openJournal({ dataDir });
    const fixture = makeVerdictFixture();
    const context = { repository: "acme/widgets", ref: null, gateVersion: "0.1.0", time: "2026-01-01T00:00:00.000Z", evidence: fixture.evidence };
    const first = await appendSignedVerdict(journal, key, fixture.verdict, context);
    const second = await appendSignedVerdict(journal, key, fixture.verdict, context);
    expect(first.entry.payload).toEqual(first.envelope);
    expect(second.entry.subject).toBe(fixture.verdict.subject.digest);
    const checked = await verifyEnvelope(second.envelope, publicKeyPem(key.publicKey), { commit: fixture.head });
    expect(checked.ok && checked.statement.predicate).toMatchObject({ journal: { sequence: 1, hash: first.entry.hash }, verdict: "CANDIDATE" });
    expect(await journal.verify({ publicKeyPem: publicKeyPem(key.publicKey), anchorEnvelope: second.envelope })).toMatchObject({ ok: true, count: 2 });
    await journal.close();
  });
});
