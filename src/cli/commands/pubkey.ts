import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { dataDirKey, dataDirSealKey, publicKeyPem, SEAL_KEY_FILE, sealPublicKeyOf, SEED_FILE } from "../../attest/index.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type Command } from "../io.js";

const USAGE = "usage: ranex pubkey [--seal] [--data-dir <dir>]";

/**
 * `ranex pubkey [--data-dir <d>]`: the PEM people verify verdicts with; with `--seal`, the X25519 key
 * maintainers seal acceptance tests to (`ranex seal --key`). Creates the key on first use.
 */
export const run: Command = async (args, io) => {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { "data-dir": { type: "string" }, seal: { type: "boolean", default: false } }, allowPositionals: false }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const dataDir = dataDirFrom(args, io.env, io.cwd);
  if (values.seal) {
    const existed = existsSync(join(dataDir, SEAL_KEY_FILE));
    const key = await dataDirSealKey(dataDir);
    if (!existed) io.stderr(`created a new sealing key in ${dataDir}\n`);
    io.stderr(`sealing key id: ${key.keyId}\n`);
    io.stdout(await sealPublicKeyOf(dataDir));
    return 0;
  }
  const existed = existsSync(join(dataDir, SEED_FILE));
  const key = await dataDirKey(dataDir);
  if (!existed) io.stderr(`created a new signing key in ${dataDir}\n`);
  io.stderr(`key id: ${key.keyId}\n`);
  io.stdout(publicKeyPem(key.publicKey));
  return 0;
};
