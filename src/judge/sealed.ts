// The parent's part of tests.sealed (issue 20): read the task's sealed file from the base tip, name
// its digest in the subject, check it is sealed to the gate's key, and load that key for the key
// pipe. Opening the box is the measuring process's work alone.
import { loadSealKey, MAX_SEALED_BYTES, readSealedHeader, SealedError, sealedFileDigest } from "../attest/index.js";
import type { Evidence } from "../kernel/index.js";
import type { Task } from "../policy/schema.js";
import { sealedAbsent, sealedUnmeasured } from "../measure/tests/sealed.js";
import type { Repository } from "../workspace/index.js";

export interface SealedInput {
  /** The sealed file as the base holds it (ciphertext). */
  box: string;
  /** `sha256:<hex>` of those bytes: the subject and the signed verdict name it. */
  digest: string;
  /** The sealing key's secret bytes, for the key pipe only. */
  secretKey: Uint8Array;
}

/** Measure with `input`, or say at once why not (`evidence`, built once the subject digest is known). */
export type SealedPrepared =
  | { digest: string; input: SealedInput }
  | { digest: string | null; evidence: (subject: string) => Evidence };

export async function prepareSealed(repo: Repository, base: string, task: Task | null, dataDir: string): Promise<SealedPrepared> {
  if (task?.sealed === undefined) return { digest: null, evidence: (subject) => sealedAbsent(subject, task !== null) };
  const path = task.sealed;
  const cannot = (digest: string | null, reason: string): SealedPrepared => ({ digest, evidence: (subject) => sealedUnmeasured(subject, reason, digest) });
  let blob: Buffer | null;
  try {
    blob = await repo.readBlob(base, path, MAX_SEALED_BYTES);
  } catch (err) {
    return cannot(null, `${path} could not be read on the base (${(err as Error).message.split("\n")[0]})`);
  }
  if (blob === null) return cannot(null, `task ${task.id} names ${path}, which is not on the base: commit the sealed file \`ranex seal\` wrote`);
  const digest = sealedFileDigest(blob);
  let recipient: string;
  try {
    recipient = readSealedHeader(blob).recipient;
  } catch (err) {
    if (err instanceof SealedError) return cannot(digest, `${path}: ${err.message}`);
    throw err;
  }
  let key;
  try {
    key = await loadSealKey(dataDir);
  } catch (err) {
    return cannot(digest, `the gate's sealing key cannot be used: ${(err as Error).message}`);
  }
  if (key === null) return cannot(digest, "the gate has no sealing key in its data dir: run `ranex keygen` there, then seal the tests to `ranex pubkey --seal`");
  if (recipient !== key.keyId) {
    return cannot(digest, `${path} was sealed to key ${recipient}, but the gate's sealing key is ${key.keyId}: seal the tests again to the gate's key (\`ranex pubkey --seal\`, then \`ranex seal --key\`)`);
  }
  return { digest, input: { box: blob.toString("utf8"), digest, secretKey: key.secretKey } };
}
