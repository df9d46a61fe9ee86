import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { dataDirKey, publicKeyPem, SEED_FILE } from "../../attest/index.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type Command } from "../io.js";

/** `ranex pubkey [--data-dir <d>]`: the PEM people verify verdicts with. Creates the key on first use. */
export const run: Command = async (args, io) => {
  try {
    parseArgs({ args, options: { "data-dir": { type: "string" } }, allowPositionals: false });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ranex pubkey [--data-dir <dir>]`);
  }
  const dataDir = dataDirFrom(args, io.env, io.cwd);
  const existed = existsSync(join(dataDir, SEED_FILE));
  const key = await dataDirKey(dataDir);
  if (!existed) io.stderr(`created a new signing key in ${dataDir}\n`);
  io.stderr(`key id: ${key.keyId}\n`);
  io.stdout(publicKeyPem(key.publicKey));
  return 0;
};
