// What merge authority (ranex/approval, escalation, branch protection) needs besides AppDeps: the
// signed journal records, the escalation state, the protection cache and the app's own identity.
// Optional in AppDeps: an app built without it posts ranex/judge alone, as before this issue.
import { createHash } from "node:crypto";
import {
  buildOverrideStatement, dataDirKey, OVERRIDE_PREDICATE_TYPE, loadSigningKey, STATEMENT_TYPE, type DsseEnvelope, type InTotoStatement, type OverridePredicate,
} from "../../attest/index.js";
import { anchorOf, appendSigned, openJournal, type JournalAnchor, type JournalHead } from "../../journal/index.js";
import { canonicalJson, type Verdict } from "../../kernel/index.js";
import { EscalationStore } from "./escalation-store.js";
import { openPushStore, type PushStore } from "./push-store.js";
import { ProtectionCache } from "../protection/protection.js";

export const APPROVAL_PREDICATE_TYPE = "https://ranex.dev/approval/v1";
export const ESCALATION_PREDICATE_TYPE = "https://ranex.dev/escalation/v1";

export interface ApprovalRecord {
  repository: string;
  pullRequest: number;
  head: string;
  /** The qualifying approvers and their review ids, in the order they approved. */
  approvers: { login: string; reviewId: number }[];
  /** The journal entry of the judge's CANDIDATE this approval completes. */
  judgeEntry: string;
  /**
   * The PASS from the kernel: the candidate's claims plus `approval.independent`. For an overridden
   * head, the FAIL as measured: the approval completes the override, it does not turn the FAIL into a PASS.
   */
  verdict: Verdict;
  /** The override entry (issue 23) when the judge's FAIL on this head was overridden. */
  override?: string;
  time: string;
}

export interface EscalationRecord {
  repository: string;
  pullRequest: number;
  head: string;
  /** `budget`: the retry budget is spent; `unsafe`: an unsafe FAIL escalates at once. */
  reason: "budget" | "unsafe";
  attempts: { head: string; class: string; reason: string; judgeEntry: string }[];
  mentioned: string[];
  time: string;
}

/** What `/ranex override` signs (issue 23): who, when, head, base, the verdict it overrides, and why. */
export type OverrideRecord = Omit<OverridePredicate, "journal">;

export interface MergeAuthority {
  recordOverride: (record: OverrideRecord) => Promise<{ journalId: string; envelope: DsseEnvelope; anchor?: JournalAnchor }>;
  recordApproval: (record: ApprovalRecord) => Promise<{ journalId: string; envelope: DsseEnvelope; anchor?: JournalAnchor }>;
  recordEscalation: (record: EscalationRecord) => Promise<{ journalId: string }>;
  escalations: EscalationStore;
  /** Who pushed to each pull request: pushers are hands in the change. */
  pushes: PushStore;
  protection: ProtectionCache;
  /** RANEX_AUTO_PROTECT=1: protect default branches on installation when the app may. */
  autoProtect: boolean;
  /** The app's own account (`<slug>[bot]`), never an approver; bots are refused anyway. */
  appLogin: string | null;
  /** Pins the required checks to this app in `ranex protect` on installation. */
  appId: number | null;
}

export interface MergeAuthorityOptions {
  dataDir: string;
  keyPath?: string;
  databaseUrl?: string;
  autoProtect?: boolean;
  appLogin?: string;
  appId?: number;
  clock?: () => Date;
}

export function mergeAuthority(options: MergeAuthorityOptions): MergeAuthority {
  const where = { dataDir: options.dataDir, databaseUrl: options.databaseUrl };
  const sign = async <T extends { repository: string; pullRequest: number; head: string }>(
    kind: "approval" | "escalation" | "override", predicateType: string, subject: string, record: T,
  ) => {
    const key = options.keyPath ? await loadSigningKey(options.keyPath) : await dataDirKey(options.dataDir);
    const journal = await openJournal(where);
    try {
      // Signed like a verdict and naming the head it extends, so `journal verify --public-key` holds.
      const { entry, envelope } = await appendSigned(journal, key, kind, subject, (head) => predicateType === OVERRIDE_PREDICATE_TYPE
        ? buildOverrideStatement(record as unknown as OverrideRecord, head) : statement(predicateType, record, head));
      return { journalId: entry.id, envelope, anchor: anchorOf(entry) };
    } finally {
      await journal.close();
    }
  };
  return {
    // Its journal subject is the overridden verdict's: the entry is about that measurement.
    recordOverride: (record) => sign("override", OVERRIDE_PREDICATE_TYPE, record.overrides.digest, record),
    recordApproval: (record) => sign("approval", APPROVAL_PREDICATE_TYPE, record.verdict.subject.digest, record),
    recordEscalation: async (record) => ({ journalId: (await sign("escalation", ESCALATION_PREDICATE_TYPE, digestOf(record), record)).journalId }),
    escalations: new EscalationStore(options.dataDir),
    pushes: openPushStore(where),
    protection: new ProtectionCache(undefined, options.clock),
    autoProtect: options.autoProtect === true,
    appLogin: options.appLogin ?? null,
    appId: options.appId ?? null,
  };
}

function statement(predicateType: string, record: { repository: string; pullRequest: number; head: string }, head: JournalHead | null): InTotoStatement {
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: `${record.repository}@refs/pull/${record.pullRequest}/head`, digest: { gitCommit: record.head } }],
    predicateType,
    predicate: { ...record, journal: head },
  };
}

/** An escalation has no verdict subject of its own: its journal subject is the digest of the pull request and head. */
function digestOf(record: EscalationRecord): string {
  const what = { repository: record.repository, pullRequest: record.pullRequest, head: record.head };
  return `sha256:${createHash("sha256").update(canonicalJson(what)).digest("hex")}`;
}
