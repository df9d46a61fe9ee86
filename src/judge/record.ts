import { dataDirKey, loadSigningKey, type DsseEnvelope, type SigningKey } from "../attest/index.js";
import { appendSignedVerdict, openJournal } from "../journal/index.js";
import type { JournalEntry } from "../journal/types.js";
import type { Verdict } from "../kernel/index.js";
import { GATE_VERSION } from "../version.js";

export interface RecordOptions {
  dataDir: string;
  /** A seed file; else the data dir's own key, created on first use. */
  keyPath?: string;
  /** Postgres journal when set; else SQLite in the data dir. */
  databaseUrl?: string;
  /** The PR ref when known (`refs/pull/7/head`). */
  ref?: string | null;
  /** ISO time of the verdict, from the caller's clock. */
  time: string;
  /** The agent and when the judgment was asked for (the app only): the agents page reads them. */
  agent?: string;
  queuedAt?: string;
}

export interface Recorded {
  envelope: DsseEnvelope;
  entry: JournalEntry;
  keyId: string;
}

/**
 * Signs a verdict and appends it to the journal. Called only after the measuring process group has
 * exited (invariant 6): the key is loaded here, never earlier. The signed statement names the
 * journal head it extends, so every published envelope anchors the journal against truncation.
 */
export async function recordVerdict(verdict: Verdict, options: RecordOptions): Promise<Recorded> {
  const key: SigningKey = options.keyPath ? await loadSigningKey(options.keyPath) : await dataDirKey(options.dataDir);
  const journal = await openJournal({ dataDir: options.dataDir, databaseUrl: options.databaseUrl });
  try {
    const { entry, envelope } = await appendSignedVerdict(journal, key, verdict, {
      repository: verdict.subject.repository, ref: options.ref ?? null, gateVersion: GATE_VERSION,
      time: options.time, evidence: verdict.claims.flatMap((c) => c.evidence),
      ...(options.agent === undefined ? {} : { agent: options.agent }),
      ...(options.queuedAt === undefined ? {} : { queuedAt: options.queuedAt }),
    });
    return { envelope, entry, keyId: key.keyId };
  } finally {
    await journal.close();
  }
}
