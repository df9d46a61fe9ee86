// The journal side of AppDeps: sign and append verdicts, journal who asked for a re-judgment, read
// entries for the verdict route. SQLite in the data dir, or Postgres when DATABASE_URL is set.
import { createHash } from "node:crypto";
import { dataDirKey, loadSigningKey, publicKeyPem, signStatement, STATEMENT_TYPE, type InTotoStatement } from "../attest/index.js";
import { recordVerdict } from "../judge/record.js";
import { canonicalJson } from "../kernel/index.js";
import { anchorOf, openJournal } from "../journal/index.js";
import type { AppDeps, RejudgeRequest } from "./deps.js";

export const REJUDGE_PREDICATE_TYPE = "https://ranex.dev/rejudge/v1";

export interface JournalOptions {
  dataDir: string;
  keyPath?: string;
  databaseUrl?: string;
}

export function journalDeps(options: JournalOptions): Pick<AppDeps, "record" | "recordRejudge" | "findEntry" | "openJournal" | "publicKey"> {
  const where = { dataDir: options.dataDir, databaseUrl: options.databaseUrl };
  return {
    record: async (judgment, context) => {
      const recorded = await recordVerdict(judgment.verdict, {
        ...where, keyPath: options.keyPath, ref: context.ref, time: context.time,
        ...(context.agent === undefined ? {} : { agent: context.agent }), ...(context.queuedAt === undefined ? {} : { queuedAt: context.queuedAt }),
      });
      return { envelope: recorded.envelope, journalId: recorded.entry.id, journalHash: recorded.entry.hash, anchor: anchorOf(recorded.entry) };
    },
    recordRejudge: async (request) => {
      const key = options.keyPath ? await loadSigningKey(options.keyPath) : await dataDirKey(options.dataDir);
      const journal = await openJournal(where);
      try {
        // Signed like a verdict, and naming the head it extends, so `journal verify --public-key` holds.
        const entry = await journal.append("rejudge", rejudgeSubject(request), (head) => signStatement(rejudgeStatement(request, head), key));
        return { journalId: entry.id };
      } finally {
        await journal.close();
      }
    },
    findEntry: async (journalId) => {
      const journal = await openJournal(where);
      try {
        return await journal.get(journalId);
      } finally {
        await journal.close();
      }
    },
    // The verdict pages read the same journal and show the key that signs.
    openJournal: () => openJournal(where),
    publicKey: async () => publicKeyPem((options.keyPath ? await loadSigningKey(options.keyPath) : await dataDirKey(options.dataDir)).publicKey),
  };
}

function rejudgeStatement(request: RejudgeRequest, head: { sequence: number; hash: string } | null): InTotoStatement {
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: `${request.repository}@refs/pull/${request.pullRequest}/head`, digest: { gitCommit: request.head } }],
    predicateType: REJUDGE_PREDICATE_TYPE,
    predicate: { ...request, journal: head },
  };
}

/** A rejudge has no verdict subject yet: its journal subject is the digest of what was asked. */
function rejudgeSubject(request: RejudgeRequest): string {
  const what = { repository: request.repository, pullRequest: request.pullRequest, head: request.head };
  return `sha256:${createHash("sha256").update(canonicalJson(what)).digest("hex")}`;
}
