// Which public key `ranex journal verify` checks signatures with, and how it says so (issue 21): the
// same on every backend, since the journal's store (SQLite or Postgres) does not change who signed it.
// In order: `--public-key`; the key the app signs with (RANEX_SIGNING_KEY_PATH, as the server reads it);
// the data dir's public key; the public half of the data dir's seed. The note names the file and the
// key id, so a reader knows exactly what vouched for the entries.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { keyIdOf, loadSigningKey, parsePublicKeyPem, PUBLIC_KEY_FILE, publicKeyPem, SEED_FILE } from "../../attest/index.js";
import { readPublicKeyFile } from "./verify.js";

export interface VerifyKey {
  /** Absent when no key was found: signatures are then not checked, and the note says so. */
  pem?: string;
  note: string;
}

export async function journalVerifyKey(given: string | undefined, dataDir: string, env: Readonly<Record<string, string | undefined>>, cwd: string): Promise<VerifyKey> {
  if (given !== undefined) return fromPem(await readPublicKeyFile(resolve(cwd, given)), `signatures checked against ${given}`);
  const signingKey = env.RANEX_SIGNING_KEY_PATH;
  if (signingKey !== undefined && signingKey !== "") {
    const path = resolve(cwd, signingKey);
    const beside = join(dirname(path), PUBLIC_KEY_FILE);
    if (existsSync(beside)) return fromPem(await readPublicKeyFile(beside), `signatures checked against the app's key (RANEX_SIGNING_KEY_PATH) ${beside}`);
    return fromPem(publicKeyPem((await loadSigningKey(path)).publicKey), `signatures checked against the app's key (RANEX_SIGNING_KEY_PATH) ${path}`);
  }
  const publicPath = join(dataDir, PUBLIC_KEY_FILE);
  if (existsSync(publicPath)) return fromPem(await readPublicKeyFile(publicPath), `signatures checked against the data dir's key ${publicPath}`);
  const seedPath = join(dataDir, SEED_FILE);
  if (existsSync(seedPath)) return fromPem(publicKeyPem((await loadSigningKey(seedPath)).publicKey), `signatures checked against the data dir's key ${seedPath}`);
  return { note: `signatures NOT checked: no key in the data dir ${dataDir} (pass --public-key <pem>)` };
}

function fromPem(pem: string, where: string): VerifyKey {
  return { pem, note: `${where} (key id ${keyIdOf(parsePublicKeyPem(pem))})` };
}
