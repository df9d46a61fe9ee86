import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { generateKey, writeKeyFiles } from "../../attest/index.js";
import { dataDirFrom } from "../data-dir.js";
import { UsageError, type Command } from "../io.js";

/** `ranex keygen [--out <dir>]`: a new Ed25519 key; never replaces one that exists. */
export const run: Command = async (args, io) => {
  const { values } = parseOrUsage(args);
  const dir = values.out !== undefined ? resolve(io.cwd, values.out) : dataDirFrom([], io.env, io.cwd);
  const key = await generateKey();
  let written;
  try {
    written = await writeKeyFiles(dir, key);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      throw new Error(`a signing key already exists in ${dir}; refusing to replace it (verdicts it signed would no longer verify against the published key)`);
    }
    throw err;
  }
  io.stdout(`signing key (secret, mode 0600): ${written.seedPath}\npublic key: ${written.publicKeyPath}\nkey id: ${key.keyId}\n`);
  return 0;
};

function parseOrUsage(args: string[]) {
  try {
    return parseArgs({ args, options: { out: { type: "string" } }, allowPositionals: false });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ranex keygen [--out <dir>]`);
  }
}
