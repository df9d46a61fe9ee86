import { keyIdOf, parsePublicKeyPem, type SigningKey } from "./keys.js";
import { sodium } from "./sodium.js";
import { isRecord, statementProblem, type InTotoStatement } from "./statement.js";

export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

export interface DsseSignature {
  keyid: string;
  /** Padded standard base64 (RFC 4648 section 4): what Go and other DSSE verifiers accept. */
  sig: string;
}

export interface DsseEnvelope {
  payloadType: string;
  payload: string;
  signatures: DsseSignature[];
}

export type VerifyResult =
  | { ok: true; statement: InTotoStatement; keyId: string }
  | { ok: false; reason: string };

/** DSSE pre-authentication encoding: `DSSEv1 <len> <type> <len> <payload>`, lengths in ASCII decimal bytes. */
export function pae(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, "utf8"), type,
    Buffer.from(` ${payload.length} `, "utf8"), Buffer.from(payload),
  ]);
}

export async function signStatement(statement: InTotoStatement, key: SigningKey): Promise<DsseEnvelope> {
  const payload = Buffer.from(JSON.stringify(statement), "utf8");
  const lib = await sodium();
  // libsodium wants the 64-byte secret key (seed + public key); it is derived, never stored.
  const { privateKey } = lib.crypto_sign_seed_keypair(key.seed);
  const signature = lib.crypto_sign_detached(pae(IN_TOTO_PAYLOAD_TYPE, payload), privateKey);
  return {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: payload.toString("base64"),
    signatures: [{ keyid: key.keyId, sig: Buffer.from(signature).toString("base64") }],
  };
}

/**
 * Verifies an envelope against one public key: the payload type, a signature over PAE, a well-formed
 * in-toto statement and, when asked, that the statement's subject is the given commit. Never throws
 * on bad input: every problem is a reason. A malformed PEM key does throw (KeyError): that is the
 * caller's input, not the envelope's.
 */
export async function verifyEnvelope(envelope: unknown, publicKeyPem: string, options: { commit?: string } = {}): Promise<VerifyResult> {
  const publicKey = parsePublicKeyPem(publicKeyPem);
  const keyId = keyIdOf(publicKey);
  if (!isRecord(envelope)) return fail("the envelope is not a JSON object");
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    return fail(`payloadType is ${JSON.stringify(envelope.payloadType)}, expected ${IN_TOTO_PAYLOAD_TYPE}`);
  }
  const payload = decodeBase64(envelope.payload);
  if (payload === null) return fail("the payload is not padded standard base64");
  if (!Array.isArray(envelope.signatures) || envelope.signatures.length === 0) return fail("the envelope has no signatures");

  const lib = await sodium();
  const message = pae(IN_TOTO_PAYLOAD_TYPE, payload);
  // keyid is an unauthenticated hint, so every signature is tried against the key we trust.
  const verified = envelope.signatures.some((entry) => {
    const sig = isRecord(entry) ? decodeBase64(entry.sig) : null;
    return sig !== null && sig.length === 64 && lib.crypto_sign_verify_detached(sig, message, publicKey);
  });
  if (!verified) return fail(`no signature verifies with key ${keyId}`);

  let statement: unknown;
  try {
    statement = JSON.parse(payload.toString("utf8"));
  } catch {
    return fail("the signed payload is not JSON");
  }
  const problem = statementProblem(statement);
  if (problem !== null) return fail(problem);
  const checked = statement as InTotoStatement;
  if (options.commit !== undefined) {
    const mismatch = commitMismatch(checked, options.commit);
    if (mismatch !== null) return fail(mismatch);
  }
  return { ok: true, statement: checked, keyId };
}

function commitMismatch(statement: InTotoStatement, commit: string): string | null {
  const wanted = commit.trim().toLowerCase();
  if (!/^[0-9a-f]{7,64}$/.test(wanted)) return `--commit ${JSON.stringify(commit)} is not a commit sha (7 to 64 hex digits)`;
  const commits = statement.subject.map((s) => s.digest.gitCommit).filter((c): c is string => typeof c === "string");
  if (commits.some((c) => c.toLowerCase().startsWith(wanted))) return null;
  return `the statement is about commit ${commits.join(", ") || "(none)"}, not ${commit}`;
}

// Strict: Buffer's decoder skips invalid characters, so a value counts only if it re-encodes to itself.
function decodeBase64(value: unknown): Buffer | null {
  if (typeof value !== "string") return null;
  const bytes = Buffer.from(value, "base64");
  return bytes.toString("base64") === value ? bytes : null;
}

function fail(reason: string): VerifyResult {
  return { ok: false, reason };
}

/**
 * Reads the statement inside an envelope WITHOUT checking any signature: for locating an envelope
 * (its journal position), never for trusting it. Null when it is not a well-formed envelope.
 */
export function statementOf(envelope: unknown): InTotoStatement | null {
  if (!isRecord(envelope) || envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE) return null;
  const payload = decodeBase64(envelope.payload);
  if (payload === null) return null;
  try {
    const statement: unknown = JSON.parse(payload.toString("utf8"));
    return statementProblem(statement) === null ? (statement as InTotoStatement) : null;
  } catch {
    return null;
  }
}
