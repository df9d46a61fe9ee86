import { execFileSync } from "node:child_process";
import { createPublicKey, verify as nodeVerify } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  buildStatement, generateKey, pae, publicKeyPem, signStatement, verifyEnvelope,
  type DsseEnvelope, type SigningKey,
} from "../../src/attest/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { makeVerdictFixture, type VerdictFixture } from "./verdict-fixture.js";

let key: SigningKey;
let pem: string;
let fixture: VerdictFixture;
let envelope: DsseEnvelope;

beforeAll(async () => {
  key = await generateKey();
  pem = publicKeyPem(key.publicKey);
  fixture = makeVerdictFixture();
  const statement = buildStatement(fixture.verdict, {
    repository: "acme/widgets", ref: "refs/pull/7/head", gateVersion: "0.1.0",
    time: "2026-01-01T00:00:00.000Z", journal: { sequence: 3, hash: "a".repeat(64) }, evidence: fixture.evidence,
  });
  envelope = await signStatement(statement, key);
});

function flipBit(bytes: Buffer, index: number, mask: number): void {
  bytes[index] = (bytes[index] ?? 0) ^ mask;
}

function withPayload(bytes: Buffer): DsseEnvelope {
  return { ...envelope, payload: bytes.toString("base64") };
}

function withSignature(bytes: Buffer): DsseEnvelope {
  return { ...envelope, signatures: [{ keyid: key.keyId, sig: bytes.toString("base64") }] };
}

describe("DSSE", () => {
  it("encodes PAE exactly as DSSE's published example", () => {
    const encoded = pae("http://example.com/HelloWorld", Buffer.from("hello world"));
    expect(encoded.toString("utf8")).toBe("DSSEv1 29 http://example.com/HelloWorld 11 hello world");
  });

  it("counts PAE lengths in bytes, not characters", () => {
    expect(pae("t", Buffer.from("é", "utf8")).toString("utf8")).toBe("DSSEv1 1 t 2 é");
  });

  it("signs an in-toto statement that verifies, naming the key and the commit", async () => {
    expect(envelope.payloadType).toBe("application/vnd.in-toto+json");
    expect(envelope.signatures[0]!.keyid).toBe(key.keyId);
    // Padded standard alphabet: a Go verifier rejects URL-safe or unpadded base64.
    expect(envelope.signatures[0]!.sig).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    const result = await verifyEnvelope(envelope, pem, { commit: fixture.head });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.keyId).toBe(key.keyId);
    expect(result.statement.subject).toEqual([{ name: "acme/widgets@refs/pull/7/head", digest: { gitCommit: fixture.head } }]);
  });

  it("agrees with Node's crypto.verify and with openssl on the same envelope", async () => {
    const payload = Buffer.from(envelope.payload, "base64");
    const signature = Buffer.from(envelope.signatures[0]!.sig, "base64");
    const message = pae(envelope.payloadType, payload);
    expect(nodeVerify(null, message, createPublicKey(pem), signature)).toBe(true);
    const dir = tempDir();
    writeFileSync(join(dir, "pub.pem"), pem);
    writeFileSync(join(dir, "sig.bin"), signature);
    writeFileSync(join(dir, "pae.bin"), message);
    const out = execFileSync("openssl", ["pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", "pub.pem", "-sigfile", "sig.bin", "-in", "pae.bin"], { cwd: dir, encoding: "utf8" });
    expect(out).toMatch(/Signature Verified Successfully/);

    // And they agree on a forgery too.
    const forged = Buffer.from(message);
    flipBit(forged, forged.length - 2, 0x01);
    writeFileSync(join(dir, "pae.bin"), forged);
    expect(nodeVerify(null, forged, createPublicKey(pem), signature)).toBe(false);
    expect(() => execFileSync("openssl", ["pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", "pub.pem", "-sigfile", "sig.bin", "-in", "pae.bin"], { cwd: dir, stdio: "pipe" })).toThrow();
  });

  it("fails when any single byte of the payload is flipped", async () => {
    const payload = Buffer.from(envelope.payload, "base64");
    for (let i = 0; i < payload.length; i++) {
      const flipped = Buffer.from(payload);
      flipBit(flipped, i, 0x01);
      const result = await verifyEnvelope(withPayload(flipped), pem);
      expect(result.ok, `payload byte ${i}`).toBe(false);
    }
  });

  it("fails when any single byte of the signature is flipped", async () => {
    const signature = Buffer.from(envelope.signatures[0]!.sig, "base64");
    for (let i = 0; i < signature.length; i++) {
      const flipped = Buffer.from(signature);
      flipBit(flipped, i, 0x80);
      const result = await verifyEnvelope(withSignature(flipped), pem);
      expect(result, `signature byte ${i}`).toEqual({ ok: false, reason: `no signature verifies with key ${key.keyId}` });
    }
  });

  it("fails with another key, even when the envelope claims that key's id", async () => {
    const other = await generateKey();
    const result = await verifyEnvelope(envelope, publicKeyPem(other.publicKey));
    expect(result).toEqual({ ok: false, reason: `no signature verifies with key ${other.keyId}` });
    const relabelled = { ...envelope, signatures: [{ keyid: other.keyId, sig: envelope.signatures[0]!.sig }] };
    expect((await verifyEnvelope(relabelled, publicKeyPem(other.publicKey))).ok).toBe(false);
  });

  it("fails --commit for a valid envelope about another commit", async () => {
    const result = await verifyEnvelope(envelope, pem, { commit: fixture.otherCommit });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(`not ${fixture.otherCommit}`);
    expect((await verifyEnvelope(envelope, pem, { commit: fixture.head.slice(0, 12) })).ok).toBe(true);
    expect((await verifyEnvelope(envelope, pem, { commit: "main" })).ok).toBe(false);
  });

  it("refuses another payload type, URL-safe base64, and envelopes without signatures", async () => {
    const typed = await verifyEnvelope({ ...envelope, payloadType: "application/json" }, pem);
    expect(typed).toMatchObject({ ok: false, reason: expect.stringContaining("payloadType") });
    const urlSafe = envelope.payload.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    if (urlSafe !== envelope.payload) {
      expect(await verifyEnvelope({ ...envelope, payload: urlSafe }, pem)).toMatchObject({ ok: false, reason: expect.stringContaining("base64") });
    }
    expect(await verifyEnvelope({ ...envelope, signatures: [] }, pem)).toMatchObject({ ok: false, reason: expect.stringContaining("no signatures") });
    expect(await verifyEnvelope("not an envelope", pem)).toMatchObject({ ok: false });
    expect(await verifyEnvelope(null, pem)).toMatchObject({ ok: false });
  });

  it("refuses a validly signed payload that is not an in-toto statement", async () => {
    const notStatement = await signStatement({ hello: "world" } as never, key);
    expect(await verifyEnvelope(notStatement, pem)).toMatchObject({ ok: false, reason: expect.stringContaining("in-toto Statement") });
  });
});
