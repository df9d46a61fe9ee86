// The sealing key (issue 20): an X25519 key pair beside the signing key. Maintainers seal acceptance
// tests to its public half (libsodium's crypto_box_seal); only the measuring process opens them, with
// the secret half handed to it through a pipe. It never signs anything, and signing keys never seal.
import { createHash } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { KeyError, writeKeyPair } from "./keys.js";
import { sodium } from "./sodium.js";

export const SEAL_KEY_FILE = "seal.key";
export const SEAL_PUBLIC_KEY_FILE = "seal.pub.pem";
const KEY_BYTES = 32;
/** The fixed DER header of an X25519 SubjectPublicKeyInfo (RFC 8410, OID 1.3.101.110). */
const X25519_SPKI_PREFIX = Buffer.from("302a300506032b656e032100", "hex");

export interface SealKey {
  /** The 32-byte X25519 secret: never inside a sandbox, never in an environment. */
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  /** `sha256:<hex>` of the public key's SPKI DER: what a sealed file names as its recipient. */
  keyId: string;
}

export function sealKeyIdOf(publicKey: Uint8Array): string {
  return `sha256:${createHash("sha256").update(sealSpkiDer(publicKey)).digest("hex")}`;
}

function sealSpkiDer(publicKey: Uint8Array): Buffer {
  if (publicKey.length !== KEY_BYTES) throw new KeyError(`an X25519 public key has ${KEY_BYTES} bytes, not ${publicKey.length}`);
  return Buffer.concat([X25519_SPKI_PREFIX, publicKey]);
}

export function sealPublicKeyPem(publicKey: Uint8Array): string {
  return `-----BEGIN PUBLIC KEY-----\n${sealSpkiDer(publicKey).toString("base64")}\n-----END PUBLIC KEY-----\n`;
}

/** The 32 raw bytes of an X25519 PEM public key; a KeyError says what is wrong (an Ed25519 signing key, say). */
export function parseSealPublicKeyPem(pem: string): Uint8Array {
  const match = /-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----/.exec(pem);
  if (match === null) throw new KeyError("not a PEM public key (no BEGIN/END PUBLIC KEY block)");
  const der = Buffer.from((match[1] ?? "").replace(/\s+/g, ""), "base64");
  if (der.length !== X25519_SPKI_PREFIX.length + KEY_BYTES || !der.subarray(0, X25519_SPKI_PREFIX.length).equals(X25519_SPKI_PREFIX)) {
    throw new KeyError("the PEM public key is not an X25519 sealing key (`ranex pubkey --seal` prints the gate's)");
  }
  return new Uint8Array(der.subarray(X25519_SPKI_PREFIX.length));
}

export async function sealKeyFromSecret(secretKey: Uint8Array): Promise<SealKey> {
  if (secretKey.length !== KEY_BYTES) throw new KeyError(`an X25519 secret key has ${KEY_BYTES} bytes, not ${secretKey.length}`);
  const publicKey = (await sodium()).crypto_scalarmult_base(secretKey);
  return { secretKey: new Uint8Array(secretKey), publicKey, keyId: sealKeyIdOf(publicKey) };
}

export async function generateSealKey(): Promise<SealKey> {
  const pair = (await sodium()).crypto_box_keypair();
  return { secretKey: pair.privateKey, publicKey: pair.publicKey, keyId: sealKeyIdOf(pair.publicKey) };
}

/** Writes `<dir>/seal.key` (0600) and `<dir>/seal.pub.pem`; never replaces either (EEXIST). */
export async function writeSealKeyFiles(dir: string, key: SealKey): Promise<{ secretPath: string; publicKeyPath: string }> {
  return writeKeyPair(dir, SEAL_KEY_FILE, key.secretKey, SEAL_PUBLIC_KEY_FILE, sealPublicKeyPem(key.publicKey));
}

/** The data dir's sealing key, or null when it has none; refuses a key file others could read. */
export async function loadSealKey(dataDir: string): Promise<SealKey | null> {
  const path = join(dataDir, SEAL_KEY_FILE);
  let handle;
  try {
    handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new KeyError(`cannot open sealing key ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new KeyError(`sealing key ${path} is not a regular file`);
    if ((info.mode & 0o077) !== 0) throw new KeyError(`sealing key ${path} is readable by group or others; run chmod 600 on it`);
    if (info.size !== KEY_BYTES) throw new KeyError(`sealing key ${path} has ${info.size} bytes; an X25519 key has ${KEY_BYTES}`);
    return await sealKeyFromSecret(new Uint8Array(await handle.readFile()));
  } finally {
    await handle.close();
  }
}

/** The data dir's sealing key, created on first use (`ranex pubkey --seal`, the page server). */
export async function dataDirSealKey(dataDir: string): Promise<SealKey> {
  const found = await loadSealKey(dataDir);
  if (found !== null) return found;
  try {
    const key = await generateSealKey();
    await writeSealKeyFiles(dataDir, key);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const raced = await loadSealKey(dataDir);
    if (raced === null) throw err;
    return raced;
  }
}

/** The public half as the data dir keeps it (checked against the secret beside it). */
export async function sealPublicKeyOf(dataDir: string): Promise<string> {
  const key = await dataDirSealKey(dataDir);
  const expected = sealPublicKeyPem(key.publicKey);
  const found = await readFile(join(dataDir, SEAL_PUBLIC_KEY_FILE), "utf8").catch(() => null);
  if (found !== null && found !== expected) throw new KeyError(`${join(dataDir, SEAL_PUBLIC_KEY_FILE)} is not the public key of ${join(dataDir, SEAL_KEY_FILE)}`);
  return expected;
}
