import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  dataDirKey, generateKey, keyFromSeed, loadSigningKey, parsePublicKeyPem, publicKeyPem, writeKeyFiles,
} from "../../src/attest/index.js";
import { tempDir } from "../helpers/git-repo.js";

// PKCS#8 header of an Ed25519 private key (RFC 8410): lets Node derive the public key on its own.
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

describe("signing keys", () => {
  it("derives the same public key and key id as Node's own Ed25519", async () => {
    const key = await generateKey();
    const nodePrivate = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, key.seed]), format: "der", type: "pkcs8" });
    const spki = createPublicKey(nodePrivate).export({ format: "der", type: "spki" });
    expect(Buffer.from(key.publicKey).equals(spki.subarray(12))).toBe(true);
    expect(key.keyId).toBe(createHash("sha256").update(spki).digest("hex"));
    const fromPem = createPublicKey(publicKeyPem(key.publicKey));
    expect(fromPem.asymmetricKeyType).toBe("ed25519");
    expect(Buffer.from(parsePublicKeyPem(publicKeyPem(key.publicKey))).equals(Buffer.from(key.publicKey))).toBe(true);
  });

  it("two generated keys differ", async () => {
    const [a, b] = await Promise.all([generateKey(), generateKey()]);
    expect(a.keyId).not.toBe(b.keyId);
  });

  it("rejects a PEM that is not an Ed25519 public key", () => {
    expect(() => parsePublicKeyPem("hello")).toThrow(/not a PEM public key/);
    const rsaLike = `-----BEGIN PUBLIC KEY-----\n${Buffer.alloc(44, 1).toString("base64")}\n-----END PUBLIC KEY-----\n`;
    expect(() => parsePublicKeyPem(rsaLike)).toThrow(/not an Ed25519 key/);
  });

  it("writes a 32-byte seed with mode 0600 and a PEM public key, and loads it back", async () => {
    const dir = join(tempDir(), "keys");
    const key = await generateKey();
    const { seedPath, publicKeyPath } = await writeKeyFiles(dir, key);
    expect(statSync(seedPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(seedPath).length).toBe(32);
    expect(readFileSync(publicKeyPath, "utf8")).toBe(publicKeyPem(key.publicKey));
    const loaded = await loadSigningKey(seedPath);
    expect(loaded.keyId).toBe(key.keyId);
    expect(Buffer.from(loaded.seed).equals(Buffer.from(key.seed))).toBe(true);
  });

  it("never overwrites an existing key", async () => {
    const dir = tempDir();
    const first = await generateKey();
    await writeKeyFiles(dir, first);
    await expect(writeKeyFiles(dir, await generateKey())).rejects.toThrow(/EEXIST|exists/);
    expect((await loadSigningKey(join(dir, "signing.key"))).keyId).toBe(first.keyId);
  });

  it("refuses a seed readable by others, of the wrong size, or behind a symlink", async () => {
    const dir = tempDir();
    const { seedPath } = await writeKeyFiles(dir, await generateKey());
    chmodSync(seedPath, 0o644);
    await expect(loadSigningKey(seedPath)).rejects.toThrow(/readable by group or others/);
    const short = join(dir, "short.key");
    writeFileSync(short, Buffer.alloc(31), { mode: 0o600 });
    await expect(loadSigningKey(short)).rejects.toThrow(/31 bytes/);
    chmodSync(seedPath, 0o600);
    const link = join(dir, "link.key");
    symlinkSync(seedPath, link);
    await expect(loadSigningKey(link)).rejects.toThrow(/cannot open signing key/);
    await expect(loadSigningKey(join(dir, "absent.key"))).rejects.toThrow(/ENOENT/);
    await expect(keyFromSeed(new Uint8Array(16))).rejects.toThrow(/32 bytes/);
  });

  it("creates the data dir key once, even when many callers race for it", async () => {
    const dir = join(tempDir(), "data");
    const keys = await Promise.all(Array.from({ length: 8 }, () => dataDirKey(dir)));
    expect(new Set(keys.map((k) => k.keyId)).size).toBe(1);
    expect(statSync(join(dir, "signing.key")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, "signing.pub.pem"), "utf8")).toBe(publicKeyPem(keys[0]!.publicKey));
    expect((await dataDirKey(dir)).keyId).toBe(keys[0]!.keyId);
  });

  it("refuses a data dir whose public key file belongs to another key", async () => {
    const dir = tempDir();
    await dataDirKey(dir);
    writeFileSync(join(dir, "signing.pub.pem"), publicKeyPem((await generateKey()).publicKey));
    await expect(dataDirKey(dir)).rejects.toThrow(/is not the public key of/);
    expect(existsSync(join(dir, "signing.key"))).toBe(true);
  });
});
