import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { parsePublicKeyPem, verifyEnvelope, VERDICT_PREDICATE_TYPE, type VerdictPredicate } from "../../attest/index.js";
import { UsageError, type Command } from "../io.js";

const USAGE = "usage: ranex verify <envelope.json> --public-key <pem> [--commit <sha>]";

/** `ranex verify`: exit 0 valid, 1 invalid, 2 when the input cannot be used at all. */
export const run: Command = async (args, io) => {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { "public-key": { type: "string" }, commit: { type: "string" } }, allowPositionals: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`give exactly one envelope file\n${USAGE}`);
  if (values["public-key"] === undefined) throw new UsageError(`--public-key is required: a signature means nothing without the key you trust\n${USAGE}`);
  const envelope = await readEnvelopeFile(resolve(io.cwd, positionals[0]!));
  const pem = await readPublicKeyFile(resolve(io.cwd, values["public-key"]));

  const result = await verifyEnvelope(envelope, pem, values.commit === undefined ? {} : { commit: values.commit });
  if (!result.ok) {
    io.stdout(`INVALID: ${result.reason}\n`);
    return 1;
  }
  const { statement, keyId } = result;
  const lines = [`valid: signed by key ${keyId}`];
  for (const subject of statement.subject) lines.push(`subject: ${subject.name} ${Object.entries(subject.digest).map(([k, v]) => `${k}:${v}`).join(" ")}`);
  if (statement.predicateType === VERDICT_PREDICATE_TYPE) {
    const p = statement.predicate as VerdictPredicate;
    lines.push(`verdict: ${p.verdict}${p.class === null ? "" : ` (${p.class})`}`);
    for (const claim of p.claims ?? []) lines.push(`  ${claim.status.padEnd(7)} ${claim.name}: ${claim.reason}`);
    for (const reason of p.reasons ?? []) lines.push(`reason: ${reason}`);
    lines.push(`gate version: ${p.gateVersion}`, `time: ${p.time}`);
    if (p.journal !== null && p.journal !== undefined) lines.push(`extends journal entry ${p.journal.sequence} (${p.journal.hash})`);
  } else {
    lines.push(`predicate type: ${statement.predicateType}`);
  }
  io.stdout(`${lines.join("\n")}\n`);
  return 0;
};

/** Reads and parses an envelope file; throws a one-line error when it is unreadable or not JSON. */
export async function readEnvelopeFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read envelope ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`envelope ${path} is not JSON`);
  }
}

/** Reads an Ed25519 PEM public key file; throws a one-line error when it is unreadable or not such a key. */
export async function readPublicKeyFile(path: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read public key ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    parsePublicKeyPem(pem);
  } catch (err) {
    throw new Error(`public key ${path}: ${(err as Error).message}`);
  }
  return pem;
}

