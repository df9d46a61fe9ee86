// What the GitHub App needs from the rest of Ranex Gate, as one injected object: tests swap any part
// (a stand-in judge, a fixed clock, a recording journal) without touching the handlers.
import type { DsseEnvelope } from "../attest/index.js";
import type { Journal, JournalAnchor } from "../journal/index.js";
import type { JudgeRequest, Judgment } from "../judge/judge.js";
import type { OpsDeps } from "../ops/routes.js";
import { pageSecret } from "../web/page-token.js";
import { agentsHref, verdictHref } from "../web/routes.js";
import type { MergeAuthority } from "./approval/deps.js";
import type { JobRunner } from "./pull-request/jobs.js";

export type { JudgeRequest, Judgment };

/** Judges one head. The signal aborts it when a newer head supersedes this one. */
export type JudgeFn = (request: JudgeRequest, signal: AbortSignal) => Promise<Judgment>;

export interface RecordContext {
  /** `owner/name`. */
  repository: string;
  /** The PR ref, `refs/pull/7/head`. */
  ref: string;
  /** ISO time of the verdict, from the injected clock. */
  time: string;
  /** The agent identity (author login, or `label:<name>`) and when the judgment was asked for (issue 23). */
  agent?: string;
  queuedAt?: string;
}

export interface RecordedVerdict {
  envelope: DsseEnvelope;
  journalId: string;
  journalHash: string;
  /** Where the entry sits in the chain; the check run carries it so GitHub keeps it (issue 13). */
  anchor?: JournalAnchor;
}

/** Signs the verdict (DSSE) and appends it to the journal. Called only after the judge returned. */
export type RecordFn = (judgment: Judgment, context: RecordContext) => Promise<RecordedVerdict>;

export interface RejudgeRequest {
  repository: string;
  pullRequest: number;
  /** The head sha that will be judged again. */
  head: string;
  /** The login of the person who asked. */
  requestedBy: string;
  via: "comment" | "check_run";
  time: string;
}

/** Journals a `rejudge` entry naming who asked, before the re-judgment runs. */
export type RecordRejudgeFn = (request: RejudgeRequest) => Promise<{ journalId: string }>;

export interface AppDeps {
  judge: JudgeFn;
  record: RecordFn;
  recordRejudge: RecordRejudgeFn;
  /** Reads one journal entry for the verdict route; null when there is none with that id. */
  findEntry: (journalId: string) => Promise<unknown | null>;
  /** Where the judge keeps its mirrors and caches. */
  dataDir: string;
  /** The app's public base URL (`RANEX_PUBLIC_URL`): check runs link to its verdict route. */
  publicUrl?: string;
  /** `RANEX_PAGE_SECRET`: verdict page tokens are HMACs under it; unset, one is kept in the data dir. */
  pageSecret?: string;
  /** Opens the journal for the verdict pages; SQLite in the data dir when not given. */
  openJournal?: () => Promise<Journal>;
  /** The PEM public key verdicts are signed with, shown on the pages; the data dir's key when not given. */
  publicKey?: () => Promise<string>;
  clock: () => Date;
  /** Runs judge jobs; the in-process runner unless a durable queue is injected. */
  runner: JobRunner;
  /** ranex/approval, escalation and branch protection (issue 6); without it only ranex/judge is posted. */
  mergeAuthority?: MergeAuthority;
  /**
   * Queues a delivery the app makes itself (a pull request judged again because its base moved on);
   * `low` lets every webhook go first. Without it (tests), such a judgment starts at once.
   */
  enqueue?: (delivery: { id: string; name: string; payload: unknown }, options: { low: boolean }) => Promise<boolean>;
  /** GET /healthz and GET /metrics, served when the server wires them (src/server.ts). */
  ops?: OpsDeps;
}

export const CHECK_NAME = "ranex/judge";
export const VERDICT_ROUTE = "/ranex/verdicts/";

/**
 * The verdict page of a journal entry with its unguessable token, or undefined when the app has no
 * public URL. Without the token the page is a 404 (issue 8).
 */
export function detailsUrl(deps: Pick<AppDeps, "publicUrl" | "pageSecret" | "dataDir">, journalId: string): string | undefined {
  if (deps.publicUrl === undefined || deps.publicUrl === "") return undefined;
  return `${deps.publicUrl.replace(/\/+$/, "")}${verdictHref(pageSecret(deps.dataDir, deps.pageSecret), journalId)}`;
}

/** The repository's agents page with its token (issue 23), or undefined when the app has no public URL. */
export function agentsUrl(deps: Pick<AppDeps, "publicUrl" | "pageSecret" | "dataDir">, repository: string): string | undefined {
  if (deps.publicUrl === undefined || deps.publicUrl === "") return undefined;
  return `${deps.publicUrl.replace(/\/+$/, "")}${agentsHref(pageSecret(deps.dataDir, deps.pageSecret), repository)}`;
}
