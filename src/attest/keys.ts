import { createHash, randomBytes } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import { link, mkdir, open, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sodium } from "./sodium.js";

export interface SigningKey {
  /** The 32-byte Ed25519 seed: the secret. */
  seed: Uint8Array;
  publicKey: Uint8Array;
  /** sha256 hex of the public key's SPKI DER: the same id `openssl pkey -pubin -outform DER | sha256sum` gives. */
  keyId: string;
}

/** The fixed DER header of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the 32 key bytes follow. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const SEED_BYTES = 32;
export const SEED_FILE = "signing.key";
export const PUBLIC_KEY_FILE = "signing.pub.pem";

export class KeyError extends Error {
  override readonly name = "KeyError";
}

export function spkiDer(publicKey: Uint8Array): Buffer {
  if (publicKey.length !== 32) throw new KeyError(`an Ed25519 public key has 32 bytes, not ${publicKey.length}`);
  return Buffer.concat([SPKI_PREFIX, publicKey]);
}

export function keyIdOf(publicKey: Uint8Array): string {
  return createHash("sha256").update(spkiDer(publicKey)).digest("hex");
}

export function publicKeyPem(publicKey: Uint8Array): string {
  const body = spkiDer(publicKey).toString("base64");
  return `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----\n`;
}

/** The 32 raw key bytes of an Ed25519 PEM SPKI public key; throws a KeyError naming what is wrong. */
export function parsePublicKeyPem(pem: string): Uint8Array {
  const match = /-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----/.exec(pem);
  if (match === null) throw new KeyError("not a PEM public key (no BEGIN/END PUBLIC KEY block)");
  const der = Buffer.from((match[1] ?? "").replace(/\s+/g, ""), "base64");
  if (der.length !== SPKI_PREFIX.length + 32 || !der.subarray(0, SPKI_PREFIX.length).equals(SPKI_PREFIX)) {
    throw new KeyError("the PEM public key is not an Ed25519 key");
  }
  return new Uint8Array(der.subarray(SPKI_PREFIX.length));
}

export async function keyFromSeed(seed: Uint8Array): Promise<SigningKey> {
  if (seed.length !== SEED_BYTES) throw new KeyError(`an Ed25519 seed has ${SEED_BYTES} bytes, not ${seed.length}`);
  const { publicKey } = (await sodium()).crypto_sign_seed_keypair(seed);
  return { seed: new Uint8Array(seed), publicKey, keyId: keyIdOf(publicKey) };
}

export async function generateKey(): Promise<SigningKey> {
  return keyFromSeed(new Uint8Array(randomBytes(SEED_BYTES)));
}

/**
 * Writes `<dir>/signing.key` (the raw seed, mode 0600) and `<dir>/signing.pub.pem`. Never overwrites:
 * a key that signed verdicts must not be silently replaced, so an existing file is an error.
 */
export async function writeKeyFiles(dir: string, key: SigningKey): Promise<{ seedPath: string; publicKeyPath: string }> {
  const { secretPath, publicKeyPath } = await writeKeyPair(dir, SEED_FILE, key.seed, PUBLIC_KEY_FILE, publicKeyPem(key.publicKey));
  return { seedPath: secretPath, publicKeyPath };
}

/**
 * Writes a secret (mode 0600) and its public half (0644) into `dir`, never replacing either: an
 * existing file is an error, and a public half that cannot be written takes the secret back.
 */
export async function writeKeyPair(dir: string, secretName: string, secret: Uint8Array, publicName: string, publicText: string): Promise<{ secretPath: string; publicKeyPath: string }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const secretPath = join(dir, secretName);
  const publicKeyPath = join(dir, publicName);
  await createExclusive(secretPath, secret, 0o600);
  try {
    await createExclusive(publicKeyPath, publicText, 0o644);
  } catch (err) {
    await unlink(secretPath).catch(() => undefined);
    throw err;
  }
  return { secretPath, publicKeyPath };
}

/** Loads a seed file, refusing one that others could read or that is not exactly 32 bytes. */
export async function loadSigningKey(seedPath: string): Promise<SigningKey> {
  let handle;
  try {
    // O_NOFOLLOW: the key file itself, never something a symlink points at.
    handle = await open(seedPath, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  } catch (err) {
    throw new KeyError(`cannot open signing key ${seedPath}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new KeyError(`signing key ${seedPath} is not a regular file`);
    if ((info.mode & 0o077) !== 0) {
      throw new KeyError(`signing key ${seedPath} is readable by group or others (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 on it`);
    }
    if (info.size !== SEED_BYTES) throw new KeyError(`signing key ${seedPath} has ${info.size} bytes; an Ed25519 seed has ${SEED_BYTES}`);
    const seed = await handle.readFile();
    return await keyFromSeed(new Uint8Array(seed));
  } finally {
    await handle.close();
  }
}

/**
 * The data dir's own signing key, created on first use. Safe when several processes start at once:
 * the key appears under its final name in one step (link), so nobody reads a half-written seed.
 */
export async function dataDirKey(dataDir: string): Promise<SigningKey> {
  const seedPath = join(dataDir, SEED_FILE);
  const publicKeyPath = join(dataDir, PUBLIC_KEY_FILE);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  let key: SigningKey;
  try {
    key = await generateKey();
    await createExclusive(seedPath, key.seed, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    key = await loadSigningKey(seedPath);
  }
  const expected = publicKeyPem(key.publicKey);
  try {
    await createExclusive(publicKeyPath, expected, 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const found = await readFile(publicKeyPath, "utf8");
    // A public key beside the seed that does not belong to it would make people verify against the wrong key.
    if (found !== expected) throw new KeyError(`${publicKeyPath} is not the public key of ${seedPath}`);
  }
  return key;
}

// Writes a temporary file, then links it to its final name: link fails with EEXIST instead of
// replacing, and the final name never shows partial content.
async function createExclusive(path: string, content: Uint8Array | string, mode: number): Promise<void> {
  const temporary = `${path}.tmp-${randomBytes(6).toString("hex")}`;
  await writeFile(temporary, content, { mode, flag: "wx" });
  try {
    const handle = await open(temporary, "r+");
    try {
      await handle.chmod(mode); // the umask may have narrowed it; never widened, but be exact.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await link(temporary, path);
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
