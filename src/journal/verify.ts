import { journalPositionOf, parsePublicKeyPem, statementOf, verifyEnvelope } from "../attest/index.js";
import { canonicalJson } from "../kernel/index.js";
import { entryHash, GENESIS_HASH } from "./chain.js";
import type { JournalEntry, JournalHead, JournalVerification, PublishedPosition, VerifyOptions } from "./types.js";

type Failure = Extract<JournalVerification, { ok: false }>;

/**
 * Walks the entries in sequence order and names the first one that is wrong: a gap (removed entry),
 * a contents/hash mismatch (edited or reordered), a broken link, a bad signature, a signed statement
 * that claims to extend another head. Then checks the anchors: a plain hash chain cannot see its own
 * tail cut off, but a published anchor can.
 */
export async function verifyEntries(entries: AsyncIterable<JournalEntry>, options: VerifyOptions = {}): Promise<JournalVerification> {
  // A key that cannot be used is the caller's mistake, not the journal's: throw (KeyError) before walking.
  if (options.publicKeyPem !== undefined) parsePublicKeyPem(options.publicKeyPem);
  const envelopeAnchor = options.anchorEnvelope === undefined ? null : envelopeAnchorOf(options.anchorEnvelope);
  if (envelopeAnchor !== null && "problem" in envelopeAnchor) return { ok: false, sequence: 0, id: null, reason: envelopeAnchor.problem };
  const anchors: PublishedPosition[] = [...(options.published ?? [])];
  if (options.anchor !== undefined) anchors.push({ ...options.anchor, source: "the anchor" });
  if (envelopeAnchor !== null && envelopeAnchor.extends.sequence > 0) anchors.push({ ...envelopeAnchor.extends, source: "the anchor" });
  // By position, so a walk over a long journal with many published anchors stays linear.
  const bySequence = new Map<number, PublishedPosition[]>();
  for (const anchor of anchors) bySequence.set(anchor.sequence, [...(bySequence.get(anchor.sequence) ?? []), anchor]);

  let previous: JournalHead | null = null;
  let count = 0;
  let envelopeFound = false;
  for await (const entry of entries) {
    const expected = (previous?.sequence ?? 0) + 1;
    const problem = await entryProblem(entry, previous, expected, options.publicKeyPem);
    if (problem !== null) return problem;
    for (const anchor of bySequence.get(entry.sequence) ?? []) {
      if (anchor.hash !== entry.hash) {
        return fail(entry, `entry ${entry.sequence} has hash ${entry.hash}, but ${anchor.source} says ${anchor.hash}: the journal was rewritten from here`);
      }
    }
    if (envelopeAnchor !== null && entry.sequence === envelopeAnchor.extends.sequence + 1) {
      if (canonicalJson(entry.payload) !== envelopeAnchor.canonical) {
        return fail(entry, `entry ${entry.sequence} should carry the anchor envelope (it extends entry ${envelopeAnchor.extends.sequence}), but carries something else: the journal was rewritten from here`);
      }
      envelopeFound = true;
    }
    previous = { sequence: entry.sequence, hash: entry.hash };
    count++;
  }

  const length = previous?.sequence ?? 0;
  // The first missing position is the gap to name: the lowest one any anchor needs.
  const beyond = anchors.filter((a) => a.sequence > length).sort((a, b) => a.sequence - b.sequence)[0];
  if (beyond !== undefined) return truncated(beyond.sequence, length, beyond.source);
  for (const anchor of anchors) {
    if (anchor.sequence === 0 && anchor.hash !== GENESIS_HASH) {
      return { ok: false, sequence: 0, id: null, reason: `the anchor names position 0 with hash ${anchor.hash}, which is not the genesis hash` };
    }
  }
  if (envelopeAnchor !== null && !envelopeFound) return truncated(envelopeAnchor.extends.sequence + 1, length, "the anchor");
  return { ok: true, count, head: previous };
}

async function entryProblem(entry: JournalEntry, previous: JournalHead | null, expected: number, publicKeyPem: string | undefined): Promise<Failure | null> {
  if (entry.sequence > expected) {
    const missing = entry.sequence === expected + 1 ? `entry ${expected} is` : `entries ${expected} to ${entry.sequence - 1} are`;
    return { ok: false, sequence: expected, id: null, reason: `${missing} missing: entry ${entry.sequence} follows entry ${expected - 1}` };
  }
  if (entry.sequence < expected) return fail(entry, `entry ${entry.sequence} appears again after entry ${expected - 1}`);
  if (entryHash(entry) !== entry.hash) {
    return fail(entry, `entry ${entry.sequence} (${entry.id}) does not match its hash: it was edited or moved after it was written`);
  }
  const prevHash = previous?.hash ?? GENESIS_HASH;
  if (entry.prevHash !== prevHash) {
    return fail(entry, `entry ${entry.sequence} (${entry.id}) does not extend entry ${expected - 1}: it names previous hash ${entry.prevHash}, the chain has ${prevHash}`);
  }
  return signatureProblem(entry, previous, publicKeyPem);
}

async function signatureProblem(entry: JournalEntry, previous: JournalHead | null, publicKeyPem: string | undefined): Promise<Failure | null> {
  let statement = statementOf(entry.payload);
  if (publicKeyPem !== undefined) {
    const result = await verifyEnvelope(entry.payload, publicKeyPem);
    if (!result.ok) return fail(entry, `entry ${entry.sequence} (${entry.id}) is not validly signed: ${result.reason}`);
    statement = result.statement;
  }
  // Without a key the statement is unauthenticated, but a payload that contradicts its own position is still wrong.
  if (statement === null) return null;
  const position = journalPositionOf(statement);
  if (position === "absent") {
    return publicKeyPem === undefined ? null : fail(entry, `entry ${entry.sequence} (${entry.id}) is signed but does not say which journal head it extends`);
  }
  const claimed = position === null ? "the start of the journal" : `entry ${position.sequence} (${position.hash})`;
  const actual = previous === null ? "the start of the journal" : `entry ${previous.sequence} (${previous.hash})`;
  if (claimed !== actual) return fail(entry, `entry ${entry.sequence} (${entry.id}) was signed as extending ${claimed}, but it follows ${actual}`);
  return null;
}

function envelopeAnchorOf(envelope: unknown): { extends: JournalHead; canonical: string } | { problem: string } {
  const statement = statementOf(envelope);
  if (statement === null) return { problem: "the anchor is not a DSSE envelope holding an in-toto statement" };
  const position = journalPositionOf(statement);
  if (position === "absent") return { problem: "the anchor envelope does not say which journal head it extends" };
  return { extends: position ?? { sequence: 0, hash: GENESIS_HASH }, canonical: canonicalJson(envelope) };
}

function truncated(sequence: number, length: number, source: string): Failure {
  return {
    ok: false, sequence, id: null,
    reason: `${source} needs entry ${sequence}, but the journal ends at entry ${length}: it was truncated or rolled back`,
  };
}

function fail(entry: JournalEntry, reason: string): Failure {
  return { ok: false, sequence: entry.sequence, id: entry.id, reason };
}
