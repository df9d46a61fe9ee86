import { signStatement, STATEMENT_TYPE, type DsseEnvelope, type SigningKey } from "../../src/attest/index.js";
import { sha256Hex } from "../../src/kernel/index.js";
import type { JournalHead } from "../../src/journal/index.js";

/** A real signed envelope whose statement names the journal head it extends, as the judge's will. */
export async function signedPayload(key: SigningKey, head: JournalHead | null, label: string): Promise<DsseEnvelope> {
  return signStatement({
    _type: STATEMENT_TYPE,
    subject: [{ name: `acme/widgets@${label}`, digest: { gitCommit: sha256Hex(label).slice(0, 40) } }],
    predicateType: "https://ranex.dev/test/v1",
    predicate: { label, journal: head },
  }, key);
}
