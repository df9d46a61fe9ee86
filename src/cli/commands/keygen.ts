import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { generateKey, generateSealKey, writeKeyFiles, writeSealKeyFiles } from "../../attest/index.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type Command } from "../io.js";

/**
 * `ranex keygen [--out <dir>]`: a new Ed25519 signing key and a new X25519 sealing key (issue 20);
 * never replaces one that exists. A directory that has a signing key but no sealing key gets the
 * sealing key alone.
 */
export const run: Command = async (args, io) => {
  const { values } = parseOrUsage(args);
  const dir = values.out !== undefined ? resolve(io.cwd, values.out) : dataDirFrom([], io.env, io.cwd);
  const key = await generateKey();
  let signing: string | null = null;
  try {
    const written = await writeKeyFiles(dir, key);
    signing = `signing key (secret, mode 0600): ${written.seedPath}\npublic key: ${written.publicKeyPath}\nkey id: ${key.keyId}\n`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const sealKey = await generateSealKey();
  let sealing: string | null = null;
  try {
    const written = await writeSealKeyFiles(dir, sealKey);
    sealing = `sealing key (secret, mode 0600): ${written.secretPath}\nsealing public key: ${written.publicKeyPath}\nsealing key id: ${sealKey.keyId}\n`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  if (signing === null && sealing === null) {
    throw new Error(`a signing key already exists in ${dir}, and a sealing key beside it; refusing to replace it or the sealing key (verdicts it signed would no longer verify, tests sealed to the other would no longer open)`);
  }
  io.stdout(`${signing ?? `signing key: kept the one in ${dir}\n`}${sealing ?? `sealing key: kept the one in ${dir}\n`}`);
  return 0;
};

function parseOrUsage(args: string[]) {
  try {
    return parseArgs({ args, options: { out: { type: "string" } }, allowPositionals: false });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ranex keygen [--out <dir>]`);
  }
}
